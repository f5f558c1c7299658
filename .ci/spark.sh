#!/usr/bin/env bash
# One local Spark Connect server for the whole test run (issue 15).
#   bash .ci/spark.sh start   installs the server side (pyspark, the `spark-server` extra) into
#                             .venv when missing, starts ONE server bound to 127.0.0.1 with a
#                             random token, waits until it answers a query, and writes the
#                             client URL (with the token) to $SPARK_STATE/url, .ci-spark/url.
#   bash .ci/spark.sh stop    stops exactly that server, by the PID in its PID file.
# Needs Java 17+. PACKATA_SPARK_PORT (default 15002) picks the port.
set -euo pipefail
cd "$(dirname "$0")/.."
state=${SPARK_STATE:-$PWD/.ci-spark}
port=${PACKATA_SPARK_PORT:-15002}
python=.venv/bin/python
export SPARK_PID_DIR=$state/pids SPARK_LOG_DIR=$state/logs SPARK_IDENT_STRING=packata-$port

start() {
  command -v java >/dev/null || { echo "spark.sh: Java (17+) is not installed" >&2; exit 1; }
  if ! "$python" -c 'import pyspark.sql.connect.session, pandas, pyarrow, grpc' 2>/dev/null; then
    "$python" -m pip install --quiet -e '.[spark-server]'
  fi
  SPARK_HOME=$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  export SPARK_HOME
  mkdir -p "$SPARK_PID_DIR" "$SPARK_LOG_DIR"
  if compgen -G "$SPARK_PID_DIR/*.pid" >/dev/null; then
    echo "spark.sh: a server started from $state is still running; stop it first" >&2
    exit 1
  fi
  # The server's catalog lives in memory: files left by an earlier server would collide.
  rm -rf "$state/warehouse"
  mkdir -p "$state/warehouse"
  token=$("$python" -c 'import secrets; print(secrets.token_hex(16))')
  (umask 077; printf '%s\n' "$token" >"$state/token")
  "$SPARK_HOME/sbin/start-connect-server.sh" --master 'local[2]' \
    --conf spark.ui.enabled=false --conf spark.driver.memory=1g \
    --conf "spark.sql.warehouse.dir=$state/warehouse" \
    --conf spark.sql.shuffle.partitions=4 \
    --conf spark.connect.grpc.binding.address=127.0.0.1 \
    --conf "spark.connect.grpc.binding.port=$port" \
    --conf "spark.connect.authenticate.token=$token" >/dev/null
  # The client sends a token without TLS only to the host name `localhost`.
  url="sc://localhost:$port/;token=$token"
  printf '%s\n' "$url" >"$state/url"
  # Ready when a query answers (the port opens before the session can run SQL).
  PACKATA_SPARK_URL=$url "$python" - <<'PY'
import os, sys, time
from pyspark.sql.connect.session import SparkSession
deadline = time.monotonic() + 240
while True:
    try:
        spark = SparkSession.builder.remote(os.environ["PACKATA_SPARK_URL"]).create()
        spark.sql("SELECT 1").collect()
        spark.stop()
        break
    except Exception as error:  # not up yet
        if time.monotonic() > deadline:
            sys.exit(f"spark.sh: the Spark Connect server did not answer: {type(error).__name__}")
        time.sleep(1)
PY
  echo "spark.sh: Spark Connect server ready on 127.0.0.1:$port"
}

stop() {
  for file in "$SPARK_PID_DIR"/*.pid; do
    [ -e "$file" ] || continue
    pid=$(cat "$file")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    rm -f "$file"
  done
  rm -f "$state/url" "$state/token"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
