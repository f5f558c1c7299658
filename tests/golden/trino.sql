-- packata-sql golden SQL for trino
-- fused scan
SELECT "packata_rows", "packata_rows" AS "m1", "packata_rows" - "a1" AS "m2", "a2" AS "m3", "a3" AS "m4", "packata_rows" - "a4" AS "m5", "a5" AS "m6", "a6" AS "m7", "a7" AS "m8", "packata_rows" - "a8" - COALESCE("a9", 0) AS "m9", CASE WHEN "a10" > 0 THEN NULL ELSE "a11" END AS "m10", "a12" AS "m11", "a2" AS "m12", "a13" AS "m13", "a14" AS "m14", "packata_rows" - "a4" AS "m15", "a4" - "a8" AS "m16", "a15" AS "m17", "a16" AS "m18", "a17" AS "m19", "a18" AS "m20", "a19" AS "m21", "a20" AS "m22", "a21" AS "m23", "a22" AS "m24", "packata_rows" - "a23" AS "m25" FROM (SELECT COUNT(*) AS "packata_rows", (SELECT COUNT(*) FROM (SELECT DISTINCT "Mixed Case", "select" FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "a1", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "a2", SUM("select") AS "a3", COUNT("Mixed Case") AS "a4", COUNT(CASE WHEN ("Mixed Case" = '') OR ("Mixed Case" = 'it''s') OR ("Mixed Case" = 'back\slash') OR ("Mixed Case" = '50%_') OR ("Mixed Case" = 'naïve ☃') OR ("Mixed Case" IS NULL) THEN 1 END) AS "a5", COUNT(CASE WHEN (("Mixed Case" = 'A') OR ("Mixed Case" = 'a ') OR ("Mixed Case" = 'x''y')) THEN NULL ELSE 1 END) AS "a6", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND REGEXP_LIKE("Mixed Case", '^[A-Z][a-z]*[0-9]?$') THEN NULL ELSE 1 END) AS "a7", COUNT(DISTINCT "Mixed Case") AS "a8", MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END) AS "a9", COUNT(CASE WHEN SUBSTR(TRIM('	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233) FROM "Mixed Case"), 1, 1) = '(' AND SUBSTR(TRIM('	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233) FROM "Mixed Case"), LENGTH(TRIM('	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233) FROM "Mixed Case")), 1) = ')' THEN 1 END) AS "a10", COUNT(CASE WHEN NOT (COALESCE(("Mixed Case" IS NULL OR LENGTH("Mixed Case") = 0), FALSE)) THEN NULL ELSE 1 END) AS "a11", COUNT(CASE WHEN (("select" = 1) OR ("select" = 2.5) OR ("select" = -3)) THEN NULL ELSE 1 END) AS "a12", COUNT(CASE WHEN COALESCE(((ABS("select")) < 100), FALSE) THEN NULL ELSE 1 END) AS "a13", COUNT(CASE WHEN ("flag" = FALSE) THEN 1 END) AS "a14", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") >= 1 THEN NULL ELSE 1 END) AS "a15", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") <= 20 THEN NULL ELSE 1 END) AS "a16", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_LIKE("Mixed Case", '^[A-Z]') THEN NULL ELSE 1 END) AS "a17", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_LIKE("Mixed Case", '^[0-9A-Fa-f]{8}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{12}$') THEN NULL ELSE 1 END) AS "a18", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" >= -1.5 THEN NULL ELSE 1 END) AS "a19", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" <= 100 THEN NULL ELSE 1 END) AS "a20", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" < 50 THEN NULL ELSE 1 END) AS "a21", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" > -10 THEN NULL ELSE 1 END) AS "a22", (SELECT COUNT(*) FROM (SELECT DISTINCT "select", "Mixed Case" FROM "it's ""odd"" `tbl` [x]" WHERE NOT ("select" IS NULL) AND NOT ("Mixed Case" IS NULL)) AS packata_keys) AS "a23" FROM "it's ""odd"" `tbl` [x]") AS packata_aggregates;
-- rows
SELECT COUNT(*) AS "packata_rows", COUNT(*) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pair-duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT "Mixed Case", "select" FROM "it's ""odd"" `tbl` [x]") AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-row
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-total
SELECT COUNT(*) AS "packata_rows", SUM("select") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- nulls
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- missing
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ("Mixed Case" = '') OR ("Mixed Case" = 'it''s') OR ("Mixed Case" = 'back\slash') OR ("Mixed Case" = '50%_') OR ("Mixed Case" = 'naïve ☃') OR ("Mixed Case" IS NULL) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- valid
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (("Mixed Case" = 'A') OR ("Mixed Case" = 'a ') OR ("Mixed Case" = 'x''y')) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- pattern
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN NOT ("Mixed Case" IS NULL) AND REGEXP_LIKE("Mixed Case", '^[A-Z][a-z]*[0-9]?$') THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- duplicates
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT(DISTINCT "Mixed Case") - COALESCE(MAX(CASE WHEN "Mixed Case" IS NULL THEN 1 ELSE 0 END), 0) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-filled
SELECT COUNT(*) AS "packata_rows", CASE WHEN COUNT(CASE WHEN SUBSTR(TRIM('	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233) FROM "Mixed Case"), 1, 1) = '(' AND SUBSTR(TRIM('	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233) FROM "Mixed Case"), LENGTH(TRIM('	                　' || CHR(10) || CHR(11) || CHR(12) || CHR(13) || CHR(133) || CHR(8232) || CHR(8233) FROM "Mixed Case")), 1) = ')' THEN 1 END) > 0 THEN NULL ELSE COUNT(CASE WHEN NOT (COALESCE(("Mixed Case" IS NULL OR LENGTH("Mixed Case") = 0), FALSE)) THEN NULL ELSE 1 END) END AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- numbers
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN (("select" = 1) OR ("select" = 2.5) OR ("select" = -3)) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-positive
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(("select" > 0), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- expressif-small
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN COALESCE(((ABS("select")) < 100), FALSE) THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- booleans
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ("flag" = FALSE) THEN 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].required
SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].unique
SELECT COUNT(*) AS "packata_rows", COUNT("Mixed Case") - COUNT(DISTINCT "Mixed Case") AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.minLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") >= 1 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.maxLength
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN LENGTH("Mixed Case") <= 20 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.pattern
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_LIKE("Mixed Case", '^[A-Z]') THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.format
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "Mixed Case" IS NULL THEN NULL WHEN REGEXP_LIKE("Mixed Case", '^[0-9A-Fa-f]{8}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{4}\-[0-9A-Fa-f]{12}$') THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.minimum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" >= -1.5 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.maximum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" <= 100 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMaximum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" < 50 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMinimum
SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN "select" IS NULL THEN NULL WHEN "select" > -10 THEN NULL ELSE 1 END) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].primaryKey
SELECT COUNT(*) AS "packata_rows", COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT "select", "Mixed Case" FROM "it's ""odd"" `tbl` [x]" WHERE NOT ("select" IS NULL) AND NOT ("Mixed Case" IS NULL)) AS packata_keys) AS "m1" FROM "it's ""odd"" `tbl` [x]";
-- schema[it's "odd"].properties[Mixed Case].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[select].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[flag].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[lines].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].properties[address].logicalType: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].required: skipped (nested-property-not-supported)
-- known-cities: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalType: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].required: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalTypeOptions.maxLength: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalType: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalTypeOptions.minimum: skipped (nested-property-not-supported)
-- sku-nulls: skipped (array-items-not-flattened)
