#!/usr/bin/env bash
# Two `wgpt serve` replicas behind nginx, configured by docs/serve-nginx.conf itself: requests
# spread over both, and a replica killed mid-stream is survived by the client retrying.
source "$(dirname "$0")/../cli/cli_support.sh"
source "$(dirname "$0")/serve_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
start_server one -m "$tiny" --parallel 2
start_server two -m "$tiny" --parallel 2

# docs/serve-nginx.conf with this run's ports, inside a minimal nginx.conf that keeps every file
# in the scratch folder and runs in the foreground as this user.
nginx_port=$(free_port)
conf=$scratch/nginx
mkdir -p "$conf"
sed -e "s/127.0.0.1:8081/127.0.0.1:$one_port/" -e "s/127.0.0.1:8082/127.0.0.1:$two_port/" \
  -e "s/listen 127.0.0.1:8080/listen 127.0.0.1:$nginx_port/" "$root/docs/serve-nginx.conf" >"$conf/wgpt.conf"
for port in "$one_port" "$two_port" "$nginx_port"; do
  grep -q "127.0.0.1:$port" "$conf/wgpt.conf" || fail "docs/serve-nginx.conf no longer has the ports this test replaces"
done
cat >"$conf/nginx.conf" <<NGINX
daemon off;
master_process off;
pid $conf/nginx.pid;
error_log $conf/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $conf/body;
  proxy_temp_path $conf/proxy;
  fastcgi_temp_path $conf/fastcgi;
  uwsgi_temp_path $conf/uwsgi;
  scgi_temp_path $conf/scgi;
  include $conf/wgpt.conf;
}
NGINX
nginx -p "$conf" -c "$conf/nginx.conf" -e "$conf/error.log" &
servers+=($!)
wait_until 30 curl -sf "http://127.0.0.1:$nginx_port/health" -o /dev/null ||
  { fail "nginx did not come up: $(cat "$conf/error.log")"; finish; }

node "$root/tests/serve/replicas_test.mjs" "http://127.0.0.1:$nginx_port" gpt2-tiny \
  "$one_port" "$one_pid" "$two_port" "$two_pid" || fail "the replica checks"
finish
