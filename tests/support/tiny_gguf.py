"""Writes a tiny llama-architecture GGUF model for the tests: python3 tiny_gguf.py OUT.gguf

Nothing is downloaded. The vocabulary is GPT-2's 256 byte tokens plus BOS and EOS, and a
merged token for every pair of printable ASCII characters, which the model never writes: it
writes one character per token, so its text tokenizes back to about half as many tokens as it
generated, and a count made by re-tokenizing an answer is visibly wrong. The weights are seeded random numbers, so greedy decoding is
deterministic and the next-token distributions are far from flat. Embedding dimension 0 is a
large constant, which keeps the final hidden state's dimension 0 positive; the output rows of
EOS, BOS and the non-printable bytes are very negative there, so the model never stops early
and only writes printable ASCII.
"""

import sys

import numpy as np
import gguf

EMBED, LAYERS, HEADS, FFN, CONTEXT = 64, 2, 4, 128, 2048


def byte_tokens():
    """GPT-2's bytes_to_unicode: each byte as the printable character that stands for it."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = keep[:]
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    table = dict(zip(keep, chars))
    return [chr(table[b]) for b in range(256)]


def main(path):
    rng = np.random.default_rng(7)
    printable_chars = [chr(b) for b in range(0x21, 0x7F)]
    pairs = [a + b for a in printable_chars for b in printable_chars]
    tokens = byte_tokens() + ["<|bos|>", "<|eos|>"] + pairs
    vocab = len(tokens)
    bos, eos = 256, 257
    types = [gguf.TokenType.NORMAL] * 256 + [gguf.TokenType.CONTROL] * 2 + [gguf.TokenType.NORMAL] * len(pairs)

    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("benchsite-tiny")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(EMBED)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(EMBED // HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(vocab)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    # A merge of two control bytes, and one per printable pair; generation reaches neither.
    writer.add_token_merges([f"{tokens[1]} {tokens[2]}"] + [f"{p[0]} {p[1]}" for p in pairs])
    writer.add_bos_token_id(bos)
    writer.add_eos_token_id(eos)
    writer.add_add_bos_token(False)
    writer.add_chat_template(
        "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant:{% endif %}"
    )

    def weights(*shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    embed = weights(vocab, EMBED, scale=1.0)
    embed[:, 0] = 50.0
    writer.add_tensor("token_embd.weight", embed)
    for layer in range(LAYERS):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(EMBED, dtype=np.float32))
        for name in ["attn_q", "attn_k", "attn_v", "attn_output"]:
            writer.add_tensor(f"{block}.{name}.weight", weights(EMBED, EMBED, scale=0.05))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(EMBED, dtype=np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", weights(FFN, EMBED, scale=0.05))
        writer.add_tensor(f"{block}.ffn_up.weight", weights(FFN, EMBED, scale=0.05))
        writer.add_tensor(f"{block}.ffn_down.weight", weights(EMBED, FFN, scale=0.05))
    norm = np.full(EMBED, 20.0, dtype=np.float32)
    norm[0] = 1.0
    writer.add_tensor("output_norm.weight", norm)
    output = weights(vocab, EMBED, scale=0.3)
    output[:, 0] = 0.0
    printable = [b for b in range(256) if 0x20 < b < 0x7F]
    never = [t for t in range(vocab) if t not in printable]
    output[never, 0] = -1000.0
    writer.add_tensor("output.weight", output)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(sys.argv[1])
