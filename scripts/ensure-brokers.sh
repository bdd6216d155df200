#!/usr/bin/env bash
# Make sure the message brokers the distributed tests use answer on this machine: Redis on
# 127.0.0.1:6379 and RabbitMQ on 127.0.0.1:5672 (guest/guest). Each is started only when it
# does not answer, and installed from the distribution's packages when it is missing. Test
# machines only.
set -uo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

install() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-brokers: $1 is missing and cannot be installed here" >&2
    return 1
  fi
  echo "ensure-brokers: installing $1" >&2
  [ -n "${_APT_UPDATED:-}" ] || { apt-get update -qq >/dev/null; _APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}

wait_port() {
  for _ in $(seq 60); do port_open "$1" && return 0; sleep 0.5; done
  echo "ensure-brokers: nothing answers on 127.0.0.1:$1" >&2
  return 1
}

if ! port_open 6379; then
  command -v redis-server >/dev/null 2>&1 || install redis-server
  redis-server --bind 127.0.0.1 --port 6379 --daemonize yes --save '' >/dev/null
  wait_port 6379
fi

if ! port_open 5672; then
  command -v rabbitmq-server >/dev/null 2>&1 || install rabbitmq-server
  # the guest user may log in from localhost only, which is where the tests connect from
  RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 rabbitmq-server -detached >/dev/null 2>&1 \
    || (rabbitmq-server >/dev/null 2>&1 &)
  wait_port 5672
fi
exit 0
