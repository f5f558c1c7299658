-- packata-sql golden SQL for duckdb
-- fused scan
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary", "select" FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "m2", COUNT(*) - COUNT("Mixed Case") AS "m3", COUNT(CASE WHEN (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'it''s') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'back\slash') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '50%_') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'naïve ☃') OR ("Mixed Case" IS NULL) THEN 1 END) AS "m4", COUNT(CASE WHEN ((CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'A') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'a ') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'x''y')) THEN NULL ELSE 1 END) AS "m5", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND REGEXP_MATCHES("Mixed Case", '^[A-Z][a-z]*[0-9]?$') THEN NULL ELSE 1 END) AS "m6", COUNT(*) - COUNT(DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary") - COALESCE(MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END), 0) AS "m7", COUNT(CASE WHEN (("select" = 1) OR ("select" = 2.5) OR ("select" = -3)) THEN NULL ELSE 1 END) AS "m8", COUNT(CASE WHEN ("flag" = FALSE) THEN 1 END) AS "m9" FROM "it's ""odd"" `tbl` [x]";
-- rows
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pair-duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary", "select" FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- nulls
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- missing
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'it''s') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'back\slash') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '50%_') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'naïve ☃') OR ("Mixed Case" IS NULL) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- valid
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ((CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'A') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'a ') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'x''y')) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pattern
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND REGEXP_MATCHES("Mixed Case", '^[A-Z][a-z]*[0-9]?$') THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT(DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary") - COALESCE(MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END), 0) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- numbers
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (("select" = 1) OR ("select" = 2.5) OR ("select" = -3)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- booleans
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ("flag" = FALSE) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
