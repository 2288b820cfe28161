# The corral image: corral, corral-shim and corral-shell on a small Debian
# base, with the egress proxy as its entry point, ready to run. A remote
# session's proxy sidecar runs it (docs/network-mode.md):
#
#   docker run --rm -p 3128:3128 corral:0.1.0 proxy --listen 0.0.0.0:3128 --allow pypi.org
#
# corral builds it through the engine's API, from its own programs, on the
# same Debian base as the agents' images:
#
#   corral image build corral
#
# By hand: copy corral, corral-shim and corral-shell from a build (and the
# host's CA bundle as build-ca.crt) into an empty folder with this file, then
#   docker build --network host -t corral:local FOLDER
ARG BASE=debian:bookworm-slim
FROM ${BASE}
# The shared libraries corral loads; `corral image build corral` passes the
# packages of the libraries its own build loads.
ARG RUNTIME_PACKAGES="libcurl4 libyaml-cpp0.7 libseccomp2 libspdlog1.10 libfmt9 libidn2-0 libtomlplusplus3"
COPY build-ca.crt /usr/local/share/corral/build-ca.crt
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      -o Acquire::https::CAInfo=/usr/local/share/corral/build-ca.crt \
      ca-certificates $RUNTIME_PACKAGES \
 && rm -rf /var/lib/apt/lists/*
COPY corral /usr/bin/corral
# The network mode's copier has the session volume at /corral-session: Docker
# copies what the image holds there into the empty volume when it makes the
# copier, so the shim and the shell need not travel with the session's files.
COPY corral-shim corral-shell /corral-session/bin/
RUN mkdir -p /usr/lib/corral \
 && ln -s /corral-session/bin/corral-shim /corral-session/bin/corral-shell /usr/lib/corral/
RUN corral --version
# The network mode's relay volume is mounted here: an empty volume takes
# this folder's owner, so the sidecar (nobody) can make its sockets there.
RUN mkdir /corral-relay && chown 65534:65534 /corral-relay
# The proxy needs no privilege: nobody runs it.
USER 65534:65534
ENV HOME=/tmp
EXPOSE 3128
ENTRYPOINT ["/usr/bin/corral"]
CMD ["proxy", "--listen", "0.0.0.0:3128"]
