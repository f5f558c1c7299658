-- packata-sql golden SQL for duckdb
-- fused scan
SELECT "packata_rows", "packata_rows" AS "m1", "packata_rows" - "a1" AS "m2", "a2" AS "m3", "a3" AS "m4", "packata_rows" - "a4" AS "m5", "a5" AS "m6", "a6" AS "m7", "a7" AS "m8", "packata_rows" - "a8" - COALESCE("a9", 0) AS "m9", CASE WHEN "a10" > 0 THEN NULL ELSE "a11" END AS "m10", "a12" AS "m11", "a2" AS "m12", "a13" AS "m13", "a14" AS "m14", "a15" - "a16" AS "m15", "a17" AS "m16", "a16" - "a18" AS "m17", "a19" AS "m18", "a20" AS "m19", "packata_rows" - "a4" AS "m20", "a4" - "a8" AS "m21", "a21" AS "m22", "a22" AS "m23", "a23" AS "m24", "a24" AS "m25", "a25" AS "m26", "a26" AS "m27", "a27" AS "m28", "a28" AS "m29", "packata_rows" - "a29" AS "m30" FROM (SELECT COUNT(*) AS "packata_rows", (SELECT COUNT(*) FROM (SELECT DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary", "select" FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "a1", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "a2", SUM("select") AS "a3", COUNT("Mixed Case") AS "a4", COUNT(CASE WHEN (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'it''s') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'back\slash') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '50%_') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'naïve ☃') OR ("Mixed Case" IS NULL) THEN 1 END) AS "a5", COUNT(CASE WHEN ((CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'A') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'a ') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'x''y')) THEN NULL ELSE 1 END) AS "a6", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND REGEXP_MATCHES("Mixed Case", '^[A-Z][a-z]*[0-9]?$') THEN NULL ELSE 1 END) AS "a7", (SELECT COUNT(DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary") FROM "it's ""odd"" `tbl` [x]") AS "a8", MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END) AS "a9", COUNT(CASE WHEN CAST(SUBSTRING(TRIM(CAST("Mixed Case" AS VARCHAR) COLLATE "binary", '	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233)), 1, 1) AS VARCHAR) COLLATE "binary" = '(' AND CAST(SUBSTRING(TRIM(CAST("Mixed Case" AS VARCHAR) COLLATE "binary", '	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233)), LENGTH(TRIM(CAST("Mixed Case" AS VARCHAR) COLLATE "binary", '	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233))), 1) AS VARCHAR) COLLATE "binary" = ')' THEN 1 END) AS "a10", COUNT(CASE WHEN NOT (COALESCE(("Mixed Case" IS NULL OR LENGTH("Mixed Case") = 0), FALSE)) THEN NULL ELSE 1 END) AS "a11", COUNT(CASE WHEN (("select" = 1) OR ("select" = 2.5) OR ("select" = -3)) THEN NULL ELSE 1 END) AS "a12", COUNT(CASE WHEN COALESCE(((ABS("select")) < 100), FALSE) THEN NULL ELSE 1 END) AS "a13", COUNT(CASE WHEN ("flag" = FALSE) THEN 1 END) AS "a14", COUNT("cust ""info""") AS "a15", COUNT("cust ""info"""['a b''s `x`']) AS "a16", COUNT(CASE WHEN ((CAST("cust ""info"""['a b''s `x`']['city.名'] AS VARCHAR) COLLATE "binary" = 'Munich') OR (CAST("cust ""info"""['a b''s `x`']['city.名'] AS VARCHAR) COLLATE "binary" = 'O''Hare')) THEN NULL ELSE 1 END) AS "a17", COUNT("cust ""info"""['a b''s `x`']['city.名']) AS "a18", COUNT(CASE WHEN "cust ""info"""['a b''s `x`']['city.名'] IS NULL THEN NULL WHEN LENGTH("cust ""info"""['a b''s `x`']['city.名']) <= 40 THEN NULL ELSE 1 END) AS "a19", COUNT(CASE WHEN "cust ""info"""['a b''s `x`']['zip "code"'] IS NULL THEN NULL WHEN "cust ""info"""['a b''s `x`']['zip "code"'] >= 1000 THEN NULL ELSE 1 END) AS "a20", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") >= 1 THEN NULL ELSE 1 END) AS "a21", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") <= 20 THEN NULL ELSE 1 END) AS "a22", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_MATCHES("Mixed Case", '^[A-Z]') THEN NULL ELSE 1 END) AS "a23", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_MATCHES("Mixed Case", '^[0-9A-Fa-f]{8}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{12}$') THEN NULL ELSE 1 END) AS "a24", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" >= -1.5 THEN NULL ELSE 1 END) AS "a25", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" <= 100 THEN NULL ELSE 1 END) AS "a26", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" < 50 THEN NULL ELSE 1 END) AS "a27", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" > -10 THEN NULL ELSE 1 END) AS "a28", (SELECT COUNT(*) FROM (SELECT DISTINCT "select", CAST("Mixed Case" AS VARCHAR) COLLATE "binary" FROM "it's ""odd"" `tbl` [x]" WHERE NOT ("select" IS NULL) AND NOT ("Mixed Case" IS NULL)) AS packata_keys) AS "a29" FROM "it's ""odd"" `tbl` [x]") AS packata_aggregates;
-- rows
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pair-duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary", "select" FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-row
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-total
SELECT COUNT(*) AS "packata_rows", SUM("select") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- nulls
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- missing
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'it''s') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'back\slash') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = '50%_') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'naïve ☃') OR ("Mixed Case" IS NULL) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- valid
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ((CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'A') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'a ') OR (CAST("Mixed Case" AS VARCHAR) COLLATE "binary" = 'x''y')) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pattern
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND REGEXP_MATCHES("Mixed Case", '^[A-Z][a-z]*[0-9]?$') THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary") FROM "it's ""odd"" `tbl` [x]") - COALESCE(MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END), 0) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-filled
SELECT COUNT(*) AS "packata_rows", CASE WHEN COUNT(CASE WHEN CAST(SUBSTRING(TRIM(CAST("Mixed Case" AS VARCHAR) COLLATE "binary", '	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233)), 1, 1) AS VARCHAR) COLLATE "binary" = '(' AND CAST(SUBSTRING(TRIM(CAST("Mixed Case" AS VARCHAR) COLLATE "binary", '	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233)), LENGTH(TRIM(CAST("Mixed Case" AS VARCHAR) COLLATE "binary", '	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233))), 1) AS VARCHAR) COLLATE "binary" = ')' THEN 1 END) > 0 THEN NULL ELSE COUNT(CASE WHEN NOT (COALESCE(("Mixed Case" IS NULL OR LENGTH("Mixed Case") = 0), FALSE)) THEN NULL ELSE 1 END) END AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- numbers
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (("select" = 1) OR ("select" = 2.5) OR ("select" = -3)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-positive
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-small
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(((ABS("select")) < 100), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- booleans
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ("flag" = FALSE) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].required
SELECT COUNT(*) AS "packata_rows", COUNT("cust ""info""") - COUNT("cust ""info"""['a b''s `x`']) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- known-cities
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ((CAST("cust ""info"""['a b''s `x`']['city.名'] AS VARCHAR) COLLATE "binary" = 'Munich') OR (CAST("cust ""info"""['a b''s `x`']['city.名'] AS VARCHAR) COLLATE "binary" = 'O''Hare')) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].properties[city].required
SELECT COUNT(*) AS "packata_rows", COUNT("cust ""info"""['a b''s `x`']) - COUNT("cust ""info"""['a b''s `x`']['city.名']) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalTypeOptions.maxLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "cust ""info"""['a b''s `x`']['city.名'] IS NULL THEN NULL WHEN LENGTH("cust ""info"""['a b''s `x`']['city.名']) <= 40 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalTypeOptions.minimum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "cust ""info"""['a b''s `x`']['zip "code"'] IS NULL THEN NULL WHEN "cust ""info"""['a b''s `x`']['zip "code"'] >= 1000 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].required
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].unique
SELECT COUNT(*) AS "packata_rows", COUNT("Mixed Case") - (SELECT COUNT(DISTINCT CAST("Mixed Case" AS VARCHAR) COLLATE "binary") FROM "it's ""odd"" `tbl` [x]") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.minLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") >= 1 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.maxLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") <= 20 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.pattern
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_MATCHES("Mixed Case", '^[A-Z]') THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.format
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_MATCHES("Mixed Case", '^[0-9A-Fa-f]{8}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{12}$') THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.minimum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" >= -1.5 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.maximum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" <= 100 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMaximum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" < 50 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMinimum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" > -10 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].primaryKey
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT "select", CAST("Mixed Case" AS VARCHAR) COLLATE "binary" FROM "it's ""odd"" `tbl` [x]" WHERE NOT ("select" IS NULL) AND NOT ("Mixed Case" IS NULL)) AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[Mixed Case].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[select].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[flag].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[lines].logicalType: from the catalog (logicalType)
-- sku-nulls: skipped (array-items-not-flattened)
