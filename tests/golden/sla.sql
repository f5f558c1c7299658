-- packata-sql golden SQL: SLA latency in the fused scan
-- duckdb
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1", COUNT(*) - COUNT("updated_at") AS "m2", EPOCH_US(MAX("updated_at")) AS "m3", EPOCH_US(MAX("shipped_on")) AS "m4" FROM "orders";
-- kept: skipped (sla-descriptive)
-- sqlite
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1", COUNT(*) - COUNT("updated_at") AS "m2", CAST(STRFTIME('%s', MAX("updated_at")) AS INTEGER) * 1000000 AS "m3", CAST(STRFTIME('%s', MAX("shipped_on")) AS INTEGER) * 1000000 AS "m4" FROM "orders";
-- kept: skipped (sla-descriptive)
-- postgres
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1", COUNT(*) - COUNT("updated_at") AS "m2", CAST((EXTRACT(EPOCH FROM MAX("updated_at"))) * 1000000 AS BIGINT) AS "m3", CAST((EXTRACT(EPOCH FROM MAX("shipped_on"))) * 1000000 AS BIGINT) AS "m4" FROM "orders";
-- kept: skipped (sla-descriptive)
-- mysql
SELECT COUNT(*) AS `packata_rows`, COUNT(*) AS `m1`, COUNT(*) - COUNT(`updated_at`) AS `m2`, CAST(UNIX_TIMESTAMP(MAX(`updated_at`)) * 1000000 AS SIGNED) AS `m3`, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', MAX(`shipped_on`)) AS `m4` FROM `orders`;
-- kept: skipped (sla-descriptive)
-- sqlserver
SELECT COUNT(*) AS [packata_rows], COUNT(*) AS [m1], COUNT(*) - COUNT([updated_at]) AS [m2] FROM [orders];
-- fresh: skipped (dialect-not-supported)
-- shipped: skipped (dialect-not-supported)
-- kept: skipped (sla-descriptive)
-- spark
SELECT COUNT(*) AS `packata_rows`, COUNT(*) AS `m1`, COUNT(*) - COUNT(`updated_at`) AS `m2`, UNIX_MICROS(MAX(`updated_at`)) AS `m3`, UNIX_DATE(MAX(`shipped_on`)) * 86400000000 AS `m4` FROM `orders`;
-- kept: skipped (sla-descriptive)
-- snowflake
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1", COUNT(*) - COUNT("updated_at") AS "m2" FROM "orders";
-- fresh: skipped (dialect-not-supported)
-- shipped: skipped (dialect-not-supported)
-- kept: skipped (sla-descriptive)
-- bigquery
SELECT COUNT(*) AS `packata_rows`, COUNT(*) AS `m1`, COUNT(*) - COUNT(`updated_at`) AS `m2` FROM `orders`;
-- fresh: skipped (dialect-not-supported)
-- shipped: skipped (dialect-not-supported)
-- kept: skipped (sla-descriptive)
-- trino
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1", COUNT(*) - COUNT("updated_at") AS "m2" FROM "orders";
-- fresh: skipped (dialect-not-supported)
-- shipped: skipped (dialect-not-supported)
-- kept: skipped (sla-descriptive)
-- databricks
SELECT COUNT(*) AS `packata_rows`, COUNT(*) AS `m1`, COUNT(*) - COUNT(`updated_at`) AS `m2`, UNIX_MICROS(MAX(`updated_at`)) AS `m3`, UNIX_DATE(MAX(`shipped_on`)) * 86400000000 AS `m4` FROM `orders`;
-- kept: skipped (sla-descriptive)
