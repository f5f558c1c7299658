"""One session class per engine family, behind `packata_sql.sessions.base.Session`."""
