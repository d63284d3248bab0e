# The release binary for this runner, checked against its published SHA-256; built from
# source only where the release has none for this platform.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-musl ;;
  Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-musl ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  *) target=unsupported ;;
esac
name="benchsite-$BENCHSITE_TAG-$target"
url="${BENCHSITE_RELEASES:-${BENCHSITE_GIT%.git}/releases/download}/$BENCHSITE_TAG/$name.tar.gz"
work="$(mktemp -d)"
mkdir -p "$HOME/.cargo/bin"
if curl -fsSL -o "$work/$name.tar.gz" "$url"; then
  curl -fsSL -o "$work/$name.tar.gz.sha256" "$url.sha256"
  (cd "$work" && shasum -a 256 -c "$name.tar.gz.sha256")
  tar -xzf "$work/$name.tar.gz" -C "$work"
  install -m 755 "$work/$name/benchsite" "$HOME/.cargo/bin/benchsite"
else
  echo "benchsite $BENCHSITE_TAG has no release binary at $url; building it from source"
  cargo install --locked --git "$BENCHSITE_GIT" --tag "$BENCHSITE_TAG" benchsite
fi
"$HOME/.cargo/bin/benchsite" --version
