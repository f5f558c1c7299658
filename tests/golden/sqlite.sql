-- packata-sql golden SQL for sqlite
-- fused scan
SELECT "packata_rows", "packata_rows" AS "m1", "packata_rows" - "a1" AS "m2", "a2" AS "m3", "a3" AS "m4", "packata_rows" - "a4" AS "m5", "a5" AS "m6", "a6" AS "m7", "a7" AS "m8", "packata_rows" - "a8" - COALESCE("a9", 0) AS "m9", "a10" AS "m10", "a11" AS "m11", "a2" AS "m12", "a12" AS "m13", "a13" AS "m14", "a14" AS "m15", "a15" - "a16" AS "m16", "a17" AS "m17", "a18" AS "m18", "a19" - "a20" AS "m19", "a21" AS "m20", "packata_rows" - "a4" AS "m21", "a4" - "a8" AS "m22", "a22" AS "m23", "a23" AS "m24", "a24" AS "m25", "a25" AS "m26", "a26" AS "m27", "a27" AS "m28", "a28" AS "m29", "a29" AS "m30", "packata_rows" - "a30" AS "m31" FROM (SELECT COUNT(*) AS "packata_rows", (SELECT COUNT(*) FROM (SELECT DISTINCT "Mixed Case" COLLATE BINARY, "select" COLLATE BINARY FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "a1", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "a2", SUM("select") AS "a3", COUNT("Mixed Case") AS "a4", COUNT(CASE WHEN (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = '' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'it''s' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'back\slash' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = '50%_' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'naïve ☃' COLLATE BINARY) OR ("Mixed Case" IS NULL) THEN 1 END) AS "a5", COUNT(CASE WHEN ((TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'A' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'a ' COLLATE BINARY) OR (TYPEOF("Mixed Case") = 'text' AND "Mixed Case" = 'x''y' COLLATE BINARY)) THEN NULL ELSE 1 END) AS "a6", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND TYPEOF("Mixed Case") = 'text' AND "Mixed Case" REGEXP '^[A-Z][a-z]*[0-9]?$' THEN NULL ELSE 1 END) AS "a7", COUNT(DISTINCT "Mixed Case" COLLATE BINARY) AS "a8", MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END) AS "a9", COUNT(CASE WHEN NOT (COALESCE(("Mixed Case" IS NULL OR LENGTH("Mixed Case") = 0), FALSE)) THEN NULL ELSE 1 END) AS "a10", COUNT(CASE WHEN ((TYPEOF("select") IN ('integer', 'real') AND "select" = 1) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = 2.5) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = -3)) THEN NULL ELSE 1 END) AS "a11", COUNT(CASE WHEN COALESCE(((ABS("select")) < 100), FALSE) THEN NULL ELSE 1 END) AS "a12", COUNT(CASE WHEN (TYPEOF("flag") = 'integer' AND "flag" = 0) THEN 1 END) AS "a13", COUNT(CASE WHEN NOT (CASE WHEN JSON_TYPE("cust ""info""", '$') = 'object' THEN 1 END IS NULL) AND (JSON_TYPE("cust ""info""", '$."a b''s `x`"') IS NULL OR NOT JSON_TYPE("cust ""info""", '$."a b''s `x`"') IN ('object', 'null')) THEN 1 END) AS "a14", COUNT(CASE WHEN JSON_TYPE("cust ""info""", '$') = 'object' THEN 1 END) AS "a15", COUNT(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"')) AS "a16", COUNT(CASE WHEN ((TYPEOF(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) = 'text' AND JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"') = 'Munich' COLLATE BINARY) OR (TYPEOF(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) = 'text' AND JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"') = 'O''Hare' COLLATE BINARY)) THEN NULL ELSE 1 END) AS "a17", COUNT(CASE WHEN NOT (CASE WHEN JSON_TYPE("cust ""info""", '$."a b''s `x`"') = 'object' THEN 1 END IS NULL) AND (JSON_TYPE("cust ""info""", '$."a b''s `x`"."city.名"') IS NULL OR NOT JSON_TYPE("cust ""info""", '$."a b''s `x`"."city.名"') IN ('text', 'null')) THEN 1 END) AS "a18", COUNT(CASE WHEN JSON_TYPE("cust ""info""", '$."a b''s `x`"') = 'object' THEN 1 END) AS "a19", COUNT(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) AS "a20", COUNT(CASE WHEN JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"') IS NULL THEN NULL WHEN LENGTH(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) <= 40 THEN NULL ELSE 1 END) AS "a21", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") >= 1 THEN NULL ELSE 1 END) AS "a22", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") <= 20 THEN NULL ELSE 1 END) AS "a23", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN TYPEOF("Mixed Case") = 'text' AND "Mixed Case" REGEXP '^[A-Z]' THEN NULL ELSE 1 END) AS "a24", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN TYPEOF("Mixed Case") = 'text' AND "Mixed Case" REGEXP '^[0-9A-Fa-f]{8}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{12}$' THEN NULL ELSE 1 END) AS "a25", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" >= -1.5 THEN NULL ELSE 1 END) AS "a26", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" <= 100 THEN NULL ELSE 1 END) AS "a27", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" < 50 THEN NULL ELSE 1 END) AS "a28", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" > -10 THEN NULL ELSE 1 END) AS "a29", (SELECT COUNT(*) FROM (SELECT DISTINCT "select" COLLATE BINARY, "Mixed Case" COLLATE BINARY FROM "it's ""odd"" `tbl` [x]" WHERE NOT ("select" IS NULL) AND NOT ("Mixed Case" IS NULL)) AS packata_keys) AS "a30" FROM "it's ""odd"" `tbl` [x]") AS packata_aggregates;
-- rows
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pair-duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT "Mixed Case" COLLATE BINARY, "select" COLLATE BINARY FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-row
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-total
SELECT COUNT(*) AS "packata_rows", SUM("select") AS "m1" FROM "it's ""odd"" `tbl` [x]";
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
-- expressif-filled
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN NOT (COALESCE(("Mixed Case" IS NULL OR LENGTH("Mixed Case") = 0), FALSE)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- numbers
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ((TYPEOF("select") IN ('integer', 'real') AND "select" = 1) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = 2.5) OR (TYPEOF("select") IN ('integer', 'real') AND "select" = -3)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-positive
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-small
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(((ABS("select")) < 100), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- booleans
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (TYPEOF("flag") = 'integer' AND "flag" = 0) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].logicalType
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN NOT (CASE WHEN JSON_TYPE("cust ""info""", '$') = 'object' THEN 1 END IS NULL) AND (JSON_TYPE("cust ""info""", '$."a b''s `x`"') IS NULL OR NOT JSON_TYPE("cust ""info""", '$."a b''s `x`"') IN ('object', 'null')) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].required
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN JSON_TYPE("cust ""info""", '$') = 'object' THEN 1 END) - COUNT(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"')) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- known-cities
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ((TYPEOF(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) = 'text' AND JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"') = 'Munich' COLLATE BINARY) OR (TYPEOF(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) = 'text' AND JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"') = 'O''Hare' COLLATE BINARY)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalType
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN NOT (CASE WHEN JSON_TYPE("cust ""info""", '$."a b''s `x`"') = 'object' THEN 1 END IS NULL) AND (JSON_TYPE("cust ""info""", '$."a b''s `x`"."city.名"') IS NULL OR NOT JSON_TYPE("cust ""info""", '$."a b''s `x`"."city.名"') IN ('text', 'null')) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].properties[city].required
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN JSON_TYPE("cust ""info""", '$."a b''s `x`"') = 'object' THEN 1 END) - COUNT(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalTypeOptions.maxLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"') IS NULL THEN NULL WHEN LENGTH(JSON_EXTRACT("cust ""info""", '$."a b''s `x`"."city.名"')) <= 40 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].required
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].unique
SELECT COUNT(*) AS "packata_rows", COUNT("Mixed Case") - COUNT(DISTINCT "Mixed Case" COLLATE BINARY) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.minLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") >= 1 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.maxLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") <= 20 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.pattern
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN TYPEOF("Mixed Case") = 'text' AND "Mixed Case" REGEXP '^[A-Z]' THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.format
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN TYPEOF("Mixed Case") = 'text' AND "Mixed Case" REGEXP '^[0-9A-Fa-f]{8}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{12}$' THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.minimum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" >= -1.5 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.maximum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" <= 100 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMaximum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" < 50 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMinimum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN TYPEOF("select") IN ('integer', 'real') AND "select" > -10 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].primaryKey
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT "select" COLLATE BINARY, "Mixed Case" COLLATE BINARY FROM "it's ""odd"" `tbl` [x]" WHERE NOT ("select" IS NULL) AND NOT ("Mixed Case" IS NULL)) AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[customer].properties[address].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[Mixed Case].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[select].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[flag].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[lines].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalType: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalTypeOptions.minimum: skipped (nested-property-not-supported)
-- sku-nulls: skipped (array-items-not-flattened)
