#!/usr/bin/env bash
# Starts the local PostgreSQL and MariaDB if they are down, then creates the `packata_test`
# database on each (or PACKATA_TEST_DB, so parallel work trees keep apart) and the SELECT-only
# login `packata_ro`, which must give its password (scram-sha-256 in pg_hba.conf, ahead of the
# trust lines that keep the admin `postgres` working). Idempotent.
set -euo pipefail
db=${PACKATA_TEST_DB:-packata_test}

wait_for() {  # wait_for NAME COMMAND...
  local name=$1; shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "$name did not come up" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
fi
wait_for PostgreSQL pg_isready -h 127.0.0.1 -p 5432

if ! mysqladmin -h 127.0.0.1 -P 3306 -u root ping >/dev/null 2>&1; then
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
fi
wait_for MariaDB mysqladmin -h 127.0.0.1 -P 3306 -u root ping

psql -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1 -q -v db="$db" <<'SQL'
SELECT format('CREATE DATABASE %I', :'db')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db')\gexec
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'packata_ro') THEN
    CREATE ROLE packata_ro LOGIN PASSWORD 'packata_ro';
  END IF;
END $$;
SQL
# Test logins authenticate with their password even where the server trusts 127.0.0.1.
hba=$(psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SHOW hba_file')
marker='# packata-sql test logins (added by .ci/services.sh)'
if ! grep -qF "$marker" "$hba"; then
  { echo "$marker"
    echo "host all packata_ro,packata_esc 127.0.0.1/32 scram-sha-256"
    echo "host all packata_ro,packata_esc ::1/128 scram-sha-256"
    cat "$hba"; } > "$hba.packata" && cat "$hba.packata" > "$hba" && rm -f "$hba.packata"
  psql -h 127.0.0.1 -U postgres -d postgres -q -c 'SELECT pg_reload_conf()' >/dev/null
fi

# Nothing is revoked: the SELECT-only login must be `enforced` on a stock database (the PUBLIC
# grant of pg_logical_emit_message is hardening advice, not a route).
psql -h 127.0.0.1 -U postgres -d "$db" -v ON_ERROR_STOP=1 -q <<SQL
GRANT CONNECT ON DATABASE "$db" TO packata_ro;
GRANT USAGE ON SCHEMA public TO packata_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO packata_ro;
ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT ON TABLES TO packata_ro;
SQL

mysql -h 127.0.0.1 -P 3306 -u root <<SQL
CREATE DATABASE IF NOT EXISTS \`$db\` CHARACTER SET utf8mb4;
CREATE USER IF NOT EXISTS 'packata_ro'@'%' IDENTIFIED BY 'packata_ro';
CREATE USER IF NOT EXISTS 'packata_ro'@'localhost' IDENTIFIED BY 'packata_ro';
CREATE USER IF NOT EXISTS 'packata_ro'@'127.0.0.1' IDENTIFIED BY 'packata_ro';
GRANT SELECT ON \`$db\`.* TO 'packata_ro'@'%';
GRANT SELECT ON \`$db\`.* TO 'packata_ro'@'localhost';
GRANT SELECT ON \`$db\`.* TO 'packata_ro'@'127.0.0.1';
SQL
