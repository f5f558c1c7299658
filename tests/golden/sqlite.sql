-- packata-sql golden SQL for sqlite
-- fused scan
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT "Mixed Case" COLLATE BINARY, "select" COLLATE BINARY FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "m2", COUNT(*) - COUNT("Mixed Case") AS "m3", COUNT(CASE WHEN (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = '' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'it''s' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'back\slash' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = '50%_' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'naïve ☃' COLLATE BINARY) OR ("Mixed Case" IS NULL) THEN 1 END) AS "m4", COUNT(CASE WHEN ((TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'A' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'a ' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'x''y' COLLATE BINARY)) THEN NULL ELSE 1 END) AS "m5", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND TYPEOF("Mixed Case") = 'text' AND "Mixed Case" REGEXP '^[A-Z][a-z]*[0-9]?$' THEN NULL ELSE 1 END) AS "m6", COUNT(*) - COUNT(DISTINCT "Mixed Case" COLLATE BINARY) - COALESCE(MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END), 0) AS "m7", COUNT(CASE WHEN ((TYPEOF("select") IN ('integer', 'real') AND "select" = 1) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = 2.5) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = -3)) THEN NULL ELSE 1 END) AS "m8", COUNT(CASE WHEN (TYPEOF("flag") = 'integer' AND "flag" = 0) THEN 1 END) AS "m9" FROM "it's ""odd"" `tbl` [x]";
-- rows
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pair-duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT "Mixed Case" COLLATE BINARY, "select" COLLATE BINARY FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- nulls
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- missing
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = '' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'it''s' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'back\slash' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = '50%_' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'naïve ☃' COLLATE BINARY) OR ("Mixed Case" IS NULL) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- valid
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ((TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'A' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'a ' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'x''y' COLLATE BINARY)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pattern
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND TYPEOF("Mixed Case") = 'text' AND "Mixed Case" REGEXP '^[A-Z][a-z]*[0-9]?$' THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT(DISTINCT "Mixed Case" COLLATE BINARY) - COALESCE(MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END), 0) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- numbers
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ((TYPEOF("select") IN ('integer', 'real') AND "select" = 1) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = 2.5) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = -3)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- booleans
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (TYPEOF("flag") = 'integer' AND "flag" = 0) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
