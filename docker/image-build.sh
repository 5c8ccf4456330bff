#!/bin/sh
# Build lkprobot from the source tree SRC and install it under ROOT
# (/ in the image; a scratch directory when the tests check these steps):
# the Debian packages the service needs (make deps-image), the build, the
# installation, and the example configuration as /etc/lkprobot/config.yaml
# when there is none. Used by docker/Dockerfile; tests/cli/t1200-image.sh
# runs it too.
set -eu
SRC=${1:?usage: image-build.sh SRC ROOT}
ROOT=${2:?usage: image-build.sh SRC ROOT}
if ! command -v make >/dev/null; then
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends make
fi
make -C "$SRC" deps-image
make -C "$SRC" lkprobot
if [ "$ROOT" = / ]; then
	make -C "$SRC" install PREFIX=/usr/local
else
	make -C "$SRC" install PREFIX=/usr/local DESTDIR="$ROOT"
fi
mkdir -p "$ROOT/etc/lkprobot" "$ROOT/lkp"
[ -e "$ROOT/etc/lkprobot/config.yaml" ] || install -m 644 "$SRC/docker/config.yaml" "$ROOT/etc/lkprobot/config.yaml"
"$ROOT/usr/local/bin/lkprobot" --version
