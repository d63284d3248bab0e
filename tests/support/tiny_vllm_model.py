"""A tiny Qwen2ForCausalLM for the real vLLM of tests/vllm.rs, built the same on every machine
and never fetched: random weights (seed 0, 388K parameters, head size 32, which vLLM's CPU
attention takes; 16 it refuses only at the first request) and a byte-level BPE tokenizer
trained here on generated sentences, with a Qwen-style chat template.

usage: python tiny_vllm_model.py OUT_DIR [--bf16] [--hidden=128]
"""
import random
import sys

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

out = next(a for a in sys.argv[1:] if not a.startswith("--"))
dtype = torch.bfloat16 if "--bf16" in sys.argv else torch.float32
VOCAB = 768
# vLLM CPU attention supports head_dim in {32,64,80,...}; hidden 64 / 4 heads = 16 is rejected.
HIDDEN = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--hidden=")), "128"))
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

# Deterministic small English corpus.
rng = random.Random(0)
subjects = ["the cat", "a dog", "my friend", "the teacher", "our team", "the model", "a small bird", "the server"]
verbs = ["sees", "likes", "builds", "reads", "answers", "finds", "writes", "runs"]
objects = ["the book", "a question", "the garden", "some code", "a long letter", "the river", "an apple", "the answer"]
tails = ["today.", "every morning.", "with care.", "in the park.", "quickly.", "before dinner.", "again.", "at night."]
corpus = [
    f"{rng.choice(subjects).capitalize()} {rng.choice(verbs)} {rng.choice(objects)} {rng.choice(tails)}"
    for _ in range(4000)
]
words = ("time person year way day thing man world life hand part child eye woman place work week case point "
         "government company number group problem fact water light house music river mountain window garden "
         "computer language question answer story letter money market city country school family morning evening "
         "beautiful quiet happy simple strong bright early late different important little large young old "
         "quickly slowly carefully always never often sometimes because although however therefore between").split()
corpus += [" ".join(rng.choice(words) for _ in range(12)) + "." for _ in range(3000)]
corpus += ["Hello! How are you? I am fine, thank you.", "What is the capital of France? Paris is the capital.",
           "user", "assistant", "system", "You are a helpful assistant."] * 20

tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=SPECIAL, show_progress=False,
                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tok.train_from_iterator(corpus, trainer=trainer)

chat_template = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                 bos_token=None, unk_token=None)
hf_tok.chat_template = chat_template
hf_tok.model_max_length = 2048
hf_tok.save_pretrained(out)

torch.manual_seed(0)
cfg = Qwen2Config(
    vocab_size=len(hf_tok), hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, intermediate_size=2 * HIDDEN, max_position_embeddings=2048,
    tie_word_embeddings=True, rope_theta=10000.0,
    eos_token_id=hf_tok.convert_tokens_to_ids("<|im_end|>"),
    pad_token_id=hf_tok.convert_tokens_to_ids("<|endoftext|>"),
    bos_token_id=hf_tok.convert_tokens_to_ids("<|endoftext|>"),
)
model = Qwen2ForCausalLM(cfg).to(dtype).eval()
model.generation_config.eos_token_id = cfg.eos_token_id
model.generation_config.pad_token_id = cfg.pad_token_id
model.save_pretrained(out, safe_serialization=True)

n = sum(p.numel() for p in model.parameters())
print(f"saved {out}: params={n} vocab={len(hf_tok)} dtype={dtype}")
ids = hf_tok.apply_chat_template([{"role": "user", "content": "Hello!"}], add_generation_prompt=True)
ids = ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids
print("chat prompt:", repr(hf_tok.decode(ids)))
with torch.no_grad():
    g = model.generate(torch.tensor([ids]), max_new_tokens=8, do_sample=False)
print("hf greedy:", repr(hf_tok.decode(g[0, len(ids):])))
