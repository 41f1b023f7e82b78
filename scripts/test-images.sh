#!/usr/bin/env bash
# Builds the container images the Docker provider's tests and benchmark run, without any image
# registry: a minimal Debian bookworm root filesystem made by mmdebstrap (from Debian's package
# mirror) and imported as the base, then this machine's own `node` and the compiled example
# workers on top. Both are cached by tag: the base is built once per machine, the worker image
# again only when the node binary or the example workers change.
#   gantry-test/base:bookworm   the imported root filesystem
#   gantry-test/worker:<hash>   ENTRYPOINT ["node"], CMD ["/app/examples/echo-worker.js"];
#                               /app/examples/http-worker.js is the load-balancing example.
#                               Also tagged gantry-test/worker:current, which tests read.
# Usage: scripts/test-images.sh        (needs a running Docker engine; mmdebstrap for the base)
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=gantry-test/base:bookworm
REPO=gantry-test/worker

say() { printf 'test-images: %s\n' "$*" >&2; }

if ! docker version >/dev/null 2>&1; then
  say "no Docker engine answers (DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock})"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if docker image inspect "$BASE" >/dev/null 2>&1; then
  say "$BASE is cached"
else
  command -v mmdebstrap >/dev/null || { say "mmdebstrap is needed to build $BASE: apt-get install -y mmdebstrap"; exit 1; }
  say "building $BASE with mmdebstrap (once per machine)"
  mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "$work/rootfs.tar" http://deb.debian.org/debian
  docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$work/rootfs.tar" "$BASE" >/dev/null
  rm -f "$work/rootfs.tar"
fi

# The example workers, compiled to plain JavaScript with the worker SDK they import.
mkdir -p "$work/ctx/app"
npx tsc --outDir "$work/ctx/app" --rootDir . --module nodenext --moduleResolution nodenext --target es2022 \
  --skipLibCheck --types node examples/echo-worker.ts examples/http-worker.ts
echo '{"type":"module"}' >"$work/ctx/app/package.json"
cp "$(readlink -f "$(command -v node)")" "$work/ctx/node"
cat >"$work/ctx/Dockerfile" <<EOF
FROM $BASE
COPY node /usr/local/bin/node
COPY app /app
WORKDIR /app
ENTRYPOINT ["node"]
CMD ["/app/examples/echo-worker.js"]
EOF

hash=$( (cd "$work/ctx" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-12)
if docker image inspect "$REPO:$hash" >/dev/null 2>&1; then
  say "$REPO:$hash is cached"
else
  say "building $REPO:$hash"
  docker build --quiet --tag "$REPO:$hash" "$work/ctx" >/dev/null
fi
docker tag "$REPO:$hash" "$REPO:current"
say "ready: $REPO:current ($REPO:$hash)"
