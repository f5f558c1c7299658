"""Database URLs: what each reads as, which are refused, and that no message or repr repeats
the password; the driver arguments built from them (TLS, time limits, password sources)."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from packata_sql.sessions.drivers import mysql_arguments, postgres_arguments
from packata_sql.sessions.endpoint import MEMORY, Endpoint, EndpointError, parse_url

SECRET = "S3ntinel-pw-9c1e"

READS = [
    # url, engine, database, host, port, user, password, schema
    ("duckdb:///rel.duckdb", "duckdb", "rel.duckdb", None, None, None, None, ()),
    ("duckdb:////abs/w.duckdb", "duckdb", "/abs/w.duckdb", None, None, None, None, ()),
    ("duckdb:///with%20space.duckdb", "duckdb", "with space.duckdb", None, None, None, None, ()),
    ("sqlite://", "sqlite", MEMORY, None, None, None, None, ()),
    ("sqlite:///:memory:", "sqlite", MEMORY, None, None, None, None, ()),
    ("postgresql://u:p%40ss%2Fw@db.example:6543/sales?schema=mart", "postgres", "sales",
     "db.example", 6543, "u", "p@ss/w", ("mart",)),
    ("postgresql+psycopg://u@h/db", "postgres", "db", "h", 5432, "u", None, ()),
    ("postgres://h/db", "postgres", "db", "h", 5432, None, None, ()),
    ("postgresql://u:pw@[::1]:5/db", "postgres", "db", "::1", 5, "u", "pw", ()),
    ("mysql+pymysql://r%C3%A9my:x@h/db", "mysql", "db", "h", 3306, "rémy", "x", ()),
    ("mariadb://u@h:3307/db", "mysql", "db", "h", 3307, "u", None, ()),
    ("mysql://u:@h/db", "mysql", "db", "h", 3306, "u", "", ()),
]


@pytest.mark.parametrize(("url", "engine", "database", "host", "port", "user", "password",
                          "schema"), READS)
def test_url_reads_as(url, engine, database, host, port, user, password, schema, monkeypatch):
    monkeypatch.delenv("PACKATA_PASSWORD", raising=False)
    endpoint = parse_url(url)
    assert (endpoint.engine, endpoint.database, endpoint.host, endpoint.port, endpoint.user,
            endpoint.password, endpoint.schema) == (engine, database, host, port, user,
                                                    password, schema)
    assert endpoint.password_source == ("url" if password is not None else None)


REFUSED = [
    (f"postgresql:/u:{SECRET}@h/db", "cannot be read"),  # a slash missing
    (f"postgresql//u:{SECRET}@h/db", "cannot be read"),  # the colon missing
    (f"u:{SECRET}@h/db", "cannot be read"),  # no scheme
    (f"postgresql://u:{SECRET}@h:{SECRET}/db", "cannot be read"),  # the port
    (f"postgresql://u:{SECRET}@h:70000/db", "between 1 and 65535"),
    (f"postgresql://u:pa@{SECRET}@h/db", "%40"),  # an '@' in the password, not encoded
    (f"postgress://u:{SECRET}@h/db", "scheme 'postgress'"),
    (f"S3ntinel://u:{SECRET}@h/db", "unsupported database URL scheme ("),
    (f"duckdb://u:{SECRET}@h/w.duckdb", "has no host"),
    ("duckdb:///w.duckdb?threads=2", "takes no parameters"),
    (f"postgresql://u:{SECRET}@h/db?{SECRET}=1", "has a parameter after '?'"),
    (f"mysql://u:{SECRET}@h/db?sslmode=require", "'sslmode'"),
    (f"postgresql://u:{SECRET}@h/db?sslmode={SECRET}", "sslmode must be one of"),
    (f"postgresql://u:{SECRET}@h/db?sslmode=require&sslmode=disable", "more than once"),
    (f"mysql://u:{SECRET}@h/db?ssl_mode={SECRET}", "ssl_mode must be one of"),
    (f"mysql://u:{SECRET}@h/db?ssl=maybe", "true or false"),
    (f"mysql://u:{SECRET}@h/db?ssl=false&ssl_ca=/ca.pem", "disables TLS"),
]


@pytest.mark.parametrize(("url", "says"), REFUSED)
def test_unusable_url_is_refused_without_repeating_it(url, says):
    with pytest.raises(EndpointError) as refused:
        parse_url(url)
    assert says in str(refused.value)
    assert SECRET not in str(refused.value)
    assert "S3ntinel" not in str(refused.value)


#: URLs whose reading must equal SQLAlchemy's `make_url` (which `parse_url` no longer imports).
AS_SQLALCHEMY = [
    *(url for url, *_ in READS if not url.startswith(("duckdb", "sqlite"))),
    *(url for url, _ in REFUSED),
    "postgresql://h", "postgresql://h:/db", "postgresql://@h/db", "postgresql://u:@/db",
    "postgresql:///db", "postgresql://u%3Au:p%3Ap@h/d%2Fb?schema=s%20t&x=&y=1&y=2&y=3",
    "postgresql://[fe80::1%25eth0]:5432/db", "postgresql://u:p:q@h/db",
    "postgresql://u:p@h:0/db", "postgresql://u:p@h: 5/db", "postgresql://h:-1/db",
    "postgresql://h/db?a=1&a=1", "postgresql://h/db?", "postgresql://h/db#frag",
    "postgresql://h/db?schema=a?b", "postgresql://h/db/more", "mysql+pymysql://",
    "post gres://h/db", "postgresql://h\n/db", "://h/db", "postgresql:/h", "",
]


@pytest.mark.parametrize("url", AS_SQLALCHEMY)
def test_server_urls_read_as_sqlalchemy_reads_them(url):
    from sqlalchemy.engine.url import make_url
    from sqlalchemy.exc import ArgumentError

    from packata_sql.sessions.endpoint import server_url_parts

    try:
        expected = make_url(url)
    except (ArgumentError, ValueError):
        with pytest.raises(ValueError):
            server_url_parts(url)
        return
    parts = server_url_parts(url)
    assert parts == (expected.drivername, expected.username, expected.password, expected.host,
                     expected.port, expected.database, dict(expected.query))


def test_password_never_in_repr_or_description(monkeypatch):
    monkeypatch.delenv("PACKATA_PASSWORD", raising=False)
    endpoint = parse_url(f"postgresql://u:{SECRET}@h/db?sslmode=require")
    assert endpoint.password == SECRET
    assert SECRET not in repr(endpoint) + endpoint.describe() + str(endpoint)


def test_packata_password_serves_urls_without_one(monkeypatch):
    monkeypatch.setenv("PACKATA_PASSWORD", SECRET)
    from_environment = parse_url("mysql://u@h/db")
    assert (from_environment.password, from_environment.password_source) \
        == (SECRET, "PACKATA_PASSWORD")
    in_url = parse_url("mysql://u:other@h/db")
    assert (in_url.password, in_url.password_source) == ("other", "url")


TLS = [
    ("mysql://u@h/db", None, ()),
    ("mysql://u@h/db?ssl_mode=required", "REQUIRED", ()),
    ("mysql://u@h/db?ssl=true", "REQUIRED", ()),
    ("mysql://u@h/db?ssl=false", "DISABLED", ()),
    ("mysql://u@h/db?ssl_ca=/ca.pem", "VERIFY_CA", (("ssl_ca", "/ca.pem"),)),
    ("mysql://u@h/db?ssl_verify_cert=true", "VERIFY_CA", ()),
    ("mysql://u@h/db?ssl_verify_identity=1&ssl_ca=/ca.pem", "VERIFY_IDENTITY",
     (("ssl_ca", "/ca.pem"),)),
    ("mysql://u@h/db?ssl_cert=/c.pem&ssl_key=/k.pem", "REQUIRED",
     (("ssl_cert", "/c.pem"), ("ssl_key", "/k.pem"))),
]


@pytest.mark.parametrize(("url", "mode", "files"), TLS)
def test_mysql_tls_parameters_read_as_an_ssl_mode(url, mode, files):
    endpoint = parse_url(url)
    assert endpoint.option("ssl_mode") == mode
    assert tuple((k, v) for k, v in endpoint.options if k != "ssl_mode") == files


def test_postgres_tls_parameters_reach_libpq_and_cleartext_is_refused_unless_tls_required():
    endpoint = parse_url("postgresql://u@h/db?sslmode=verify-full&sslrootcert=/ca.pem"
                         "&sslcert=/c.pem&sslkey=/k.pem")
    arguments = postgres_arguments(endpoint, 170000)
    assert {k: arguments[k] for k in ("sslmode", "sslrootcert", "sslcert", "sslkey")} == {
        "sslmode": "verify-full", "sslrootcert": "/ca.pem", "sslcert": "/c.pem",
        "sslkey": "/k.pem"}
    assert "require_auth" not in arguments  # cleartext inside TLS is not clear text
    plain = postgres_arguments(parse_url("postgresql://u@h/db?sslmode=prefer"), 170000)
    assert plain["require_auth"] == "!password"
    assert "require_auth" not in postgres_arguments(parse_url("postgresql://u@h/db"), 150000)


def test_postgres_without_a_password_lets_libpq_find_one(monkeypatch):
    monkeypatch.delenv("PACKATA_PASSWORD", raising=False)
    for url in ("postgresql://u@h/db", "postgresql://u:@h/db"):
        assert postgres_arguments(parse_url(url), 170000)["password"] is None


def test_connect_limits_reach_both_drivers():
    endpoint = Endpoint("mysql", "db", host="h", port=3306, user="u", connect_timeout_s=2.5)
    arguments = mysql_arguments(endpoint)
    assert (arguments["connect_timeout"], arguments["read_timeout"],
            arguments["write_timeout"]) == (2.5, 2.5, 2.5)
    assert postgres_arguments(Endpoint("postgres", "db", host="h", port=5432, user="u",
                                       connect_timeout_s=2.5), 170000)["connect_timeout"] == 3


def test_mysql_tls_modes_become_an_ssl_context(tmp_path):
    required = mysql_arguments(parse_url("mysql://u@h/db?ssl_mode=REQUIRED"))
    assert isinstance(required["ssl"], ssl.SSLContext)
    assert required["ssl"].verify_mode == ssl.CERT_NONE
    assert "auth_plugin_map" not in required  # cleartext inside required TLS is allowed
    identity = mysql_arguments(parse_url("mysql://u@h/db?ssl_mode=VERIFY_IDENTITY"))["ssl"]
    assert (identity.verify_mode, identity.check_hostname) == (ssl.CERT_REQUIRED, True)
    disabled = mysql_arguments(parse_url("mysql://u@h/db?ssl_mode=DISABLED"))
    assert disabled["ssl_disabled"] is True
    assert set(disabled["auth_plugin_map"]) == {"mysql_clear_password", "dialog"}
    preferred = mysql_arguments(parse_url("mysql://u@h/db"))
    assert "ssl" not in preferred and "auth_plugin_map" in preferred


def test_mysql_tls_files_that_cannot_be_read_are_a_connection_failure(tmp_path):
    from packata_sql.sessions.base import ProviderError

    missing = tmp_path / "absent.pem"
    with pytest.raises(ProviderError) as failed:
        mysql_arguments(parse_url(f"mysql://u@h/db?ssl_ca={missing}"))
    assert (failed.value.category, failed.value.code) == ("connection-failed", "tls-files")


def test_mysql_option_file_is_read_when_no_password_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PACKATA_PASSWORD", raising=False)
    assert "read_default_file" not in mysql_arguments(parse_url("mysql://u@h/db"))
    option_file = Path(tmp_path, ".my.cnf")
    option_file.write_text("[client]\npassword=x\n", encoding="utf-8")
    assert mysql_arguments(parse_url("mysql://u@h/db"))["read_default_file"] == str(option_file)
    assert "read_default_file" not in mysql_arguments(parse_url("mysql://u:pw@h/db"))
