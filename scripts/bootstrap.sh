#!/usr/bin/env bash
# Install, idempotently, the Debian packages ulnet needs to build and test.
# Safe to run again: it installs only what is missing and never prompts.
# libnetfilter-queue-dev and iptables serve only the failure lab
# (tools/nfqloss, tests/net/netns_failover.sh; docs/failure-lab.md).
set -euo pipefail

packages=(
	cmake ninja-build pkg-config gcc clang binutils libsystemd-dev systemd
	libmicrohttpd-dev zlib1g-dev prometheus python3-prometheus-client gnuplot-nox
	libyaml-dev libcmocka-dev tshark iproute2 python3 python3-yaml groff-base
	clang-format clang-tidy codespell
	libnetfilter-queue-dev iptables
)
# libFuzzer's runtime comes with the clang runtime package of the clang
# version the distribution ships (libclang-rt-14-dev on Debian 12).
if command -v clang >/dev/null 2>&1; then
	clang_major=$(clang -dumpversion | cut -d. -f1)
	packages+=("libclang-rt-${clang_major}-dev")
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "bootstrap: all ${#packages[@]} packages present"
	exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=(sudo -n)
	else
		echo "bootstrap: not root and no sudo; install by hand: ${missing[*]}" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, silently.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	"${sudo[@]}" debconf-set-selections 2>/dev/null || true
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
# clang was missing before: now that it is here, add its runtime too.
if [ -z "${clang_major:-}" ] && command -v clang >/dev/null 2>&1; then
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends \
		"libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
fi
