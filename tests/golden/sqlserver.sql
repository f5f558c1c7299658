-- packata-sql golden SQL for sqlserver
-- fused scan
SELECT [packata_rows], [packata_rows] AS [m1], [packata_rows] - [a1] AS [m2], [a2] AS [m3], [a3] AS [m4], [packata_rows] - [a4] AS [m5], [a5] AS [m6], [a6] AS [m7], [packata_rows] - [a7] - COALESCE([a8], 0) AS [m8], CASE WHEN [a9] > 0 THEN NULL ELSE [a10] END AS [m9], [a11] AS [m10], [a2] AS [m11], [a12] AS [m12], [a13] AS [m13], [packata_rows] - [a4] AS [m14], [a4] - [a7] AS [m15], [a14] AS [m16], [a15] AS [m17], [a16] AS [m18], [a17] AS [m19], [a18] AS [m20], [a19] AS [m21], [packata_rows] - [a20] AS [m22] FROM (SELECT COUNT(*) AS [packata_rows], (SELECT COUNT(*) FROM (SELECT DISTINCT CAST([Mixed Case] AS VARBINARY(MAX)) AS [mixed case], [select] AS [select] FROM [it's "odd" `tbl` [x]]]) AS packata_keys) AS [a1], COUNT(CASE WHEN COALESCE(([select] > 0), (1 = 0)) THEN NULL ELSE 1 END) AS [a2], SUM([select]) AS [a3], COUNT([Mixed Case]) AS [a4], COUNT(CASE WHEN ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'' AND LEN(([Mixed Case] + N'.')) - 1 = 0) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'it''s' AND LEN(([Mixed Case] + N'.')) - 1 = 4) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'back\slash' AND LEN(([Mixed Case] + N'.')) - 1 = 10) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'50%_' AND LEN(([Mixed Case] + N'.')) - 1 = 4) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'naïve ☃' AND LEN(([Mixed Case] + N'.')) - 1 = 7) OR ([Mixed Case] IS NULL) THEN 1 END) AS [a5], COUNT(CASE WHEN (([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'A' AND LEN(([Mixed Case] + N'.')) - 1 = 1) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'a ' AND LEN(([Mixed Case] + N'.')) - 1 = 2) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'x''y' AND LEN(([Mixed Case] + N'.')) - 1 = 3)) THEN NULL ELSE 1 END) AS [a6], COUNT(DISTINCT CAST([Mixed Case] AS VARBINARY(MAX))) AS [a7], MAX(CASE WHEN [Mixed Case] IS NULL THEN 1 ELSE 0 END) AS [a8], COUNT(CASE WHEN (SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), 1, 1) COLLATE Latin1_General_100_BIN2 = N'(' AND LEN((SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), 1, 1) + N'.')) - 1 = 1) AND (SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), LEN((TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))) + N'.')) - 1, 1) COLLATE Latin1_General_100_BIN2 = N')' AND LEN((SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), LEN((TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))) + N'.')) - 1, 1) + N'.')) - 1 = 1) THEN 1 END) AS [a9], COUNT(CASE WHEN NOT (COALESCE(([Mixed Case] IS NULL OR LEN(([Mixed Case] + N'.')) - 1 = 0), (1 = 0))) THEN NULL ELSE 1 END) AS [a10], COUNT(CASE WHEN (([select] = 1) OR ([select] = 2.5) OR ([select] = -3)) THEN NULL ELSE 1 END) AS [a11], COUNT(CASE WHEN COALESCE(((ABS([select])) < 100), (1 = 0)) THEN NULL ELSE 1 END) AS [a12], COUNT(CASE WHEN ([flag] = 0) THEN 1 END) AS [a13], COUNT(CASE WHEN [Mixed Case] IS NULL THEN NULL WHEN LEN(([Mixed Case] + N'.')) - 1 >= 1 THEN NULL ELSE 1 END) AS [a14], COUNT(CASE WHEN [Mixed Case] IS NULL THEN NULL WHEN LEN(([Mixed Case] + N'.')) - 1 <= 20 THEN NULL ELSE 1 END) AS [a15], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] >= -1.5 THEN NULL ELSE 1 END) AS [a16], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] <= 100 THEN NULL ELSE 1 END) AS [a17], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] < 50 THEN NULL ELSE 1 END) AS [a18], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] > -10 THEN NULL ELSE 1 END) AS [a19], (SELECT COUNT(*) FROM (SELECT DISTINCT [select] AS [select], CAST([Mixed Case] AS VARBINARY(MAX)) AS [mixed case] FROM [it's "odd" `tbl` [x]]] WHERE NOT ([select] IS NULL) AND NOT ([Mixed Case] IS NULL)) AS packata_keys) AS [a20] FROM [it's "odd" `tbl` [x]]]) AS packata_aggregates;
-- rows
SELECT COUNT(*) AS [packata_rows], COUNT(*) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- pair-duplicates
SELECT COUNT(*) AS [packata_rows], COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT CAST([Mixed Case] AS VARBINARY(MAX)) AS [mixed case], [select] AS [select] FROM [it's "odd" `tbl` [x]]]) AS packata_keys) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- expressif-row
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN COALESCE(([select] > 0), (1 = 0)) THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- expressif-total
SELECT COUNT(*) AS [packata_rows], SUM([select]) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- nulls
SELECT COUNT(*) AS [packata_rows], COUNT(*) - COUNT([Mixed Case]) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- missing
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'' AND LEN(([Mixed Case] + N'.')) - 1 = 0) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'it''s' AND LEN(([Mixed Case] + N'.')) - 1 = 4) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'back\slash' AND LEN(([Mixed Case] + N'.')) - 1 = 10) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'50%_' AND LEN(([Mixed Case] + N'.')) - 1 = 4) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'naïve ☃' AND LEN(([Mixed Case] + N'.')) - 1 = 7) OR ([Mixed Case] IS NULL) THEN 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- valid
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN (([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'A' AND LEN(([Mixed Case] + N'.')) - 1 = 1) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'a ' AND LEN(([Mixed Case] + N'.')) - 1 = 2) OR ([Mixed Case] COLLATE Latin1_General_100_BIN2 = N'x''y' AND LEN(([Mixed Case] + N'.')) - 1 = 3)) THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- duplicates
SELECT COUNT(*) AS [packata_rows], COUNT(*) - COUNT(DISTINCT CAST([Mixed Case] AS VARBINARY(MAX))) - COALESCE(MAX(CASE WHEN [Mixed Case] IS NULL THEN 1 ELSE 0 END), 0) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- expressif-filled
SELECT COUNT(*) AS [packata_rows], CASE WHEN COUNT(CASE WHEN (SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), 1, 1) COLLATE Latin1_General_100_BIN2 = N'(' AND LEN((SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), 1, 1) + N'.')) - 1 = 1) AND (SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), LEN((TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))) + N'.')) - 1, 1) COLLATE Latin1_General_100_BIN2 = N')' AND LEN((SUBSTRING(TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))), LEN((TRIM('	                　' + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(133) + NCHAR(8232) + NCHAR(8233) FROM CAST([Mixed Case] AS VARBINARY(MAX))) + N'.')) - 1, 1) + N'.')) - 1 = 1) THEN 1 END) > 0 THEN NULL ELSE COUNT(CASE WHEN NOT (COALESCE(([Mixed Case] IS NULL OR LEN(([Mixed Case] + N'.')) - 1 = 0), (1 = 0))) THEN NULL ELSE 1 END) END AS [m1] FROM [it's "odd" `tbl` [x]]];
-- numbers
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN (([select] = 1) OR ([select] = 2.5) OR ([select] = -3)) THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- expressif-positive
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN COALESCE(([select] > 0), (1 = 0)) THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- expressif-small
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN COALESCE(((ABS([select])) < 100), (1 = 0)) THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- booleans
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN ([flag] = 0) THEN 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[Mixed Case].required
SELECT COUNT(*) AS [packata_rows], COUNT(*) - COUNT([Mixed Case]) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[Mixed Case].unique
SELECT COUNT(*) AS [packata_rows], COUNT([Mixed Case]) - COUNT(DISTINCT CAST([Mixed Case] AS VARBINARY(MAX))) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.minLength
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN [Mixed Case] IS NULL THEN NULL WHEN LEN(([Mixed Case] + N'.')) - 1 >= 1 THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.maxLength
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN [Mixed Case] IS NULL THEN NULL WHEN LEN(([Mixed Case] + N'.')) - 1 <= 20 THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[select].logicalTypeOptions.minimum
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] >= -1.5 THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[select].logicalTypeOptions.maximum
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] <= 100 THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMaximum
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] < 50 THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[select].logicalTypeOptions.exclusiveMinimum
SELECT COUNT(*) AS [packata_rows], COUNT(CASE WHEN [select] IS NULL THEN NULL WHEN [select] > -10 THEN NULL ELSE 1 END) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].primaryKey
SELECT COUNT(*) AS [packata_rows], COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT [select] AS [select], CAST([Mixed Case] AS VARBINARY(MAX)) AS [mixed case] FROM [it's "odd" `tbl` [x]]] WHERE NOT ([select] IS NULL) AND NOT ([Mixed Case] IS NULL)) AS packata_keys) AS [m1] FROM [it's "odd" `tbl` [x]]];
-- schema[it's "odd"].properties[Mixed Case].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[select].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[flag].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[customer].logicalType: from the catalog (logicalType)
-- schema[it's "odd"].properties[lines].logicalType: from the catalog (logicalType)
-- pattern: skipped (unsupported-pattern)
-- schema[it's "odd"].properties[customer].properties[address].logicalType: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].required: skipped (nested-property-not-supported)
-- known-cities: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalType: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].required: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[city].logicalTypeOptions.maxLength: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalType: skipped (nested-property-not-supported)
-- schema[it's "odd"].properties[customer].properties[address].properties[zip].logicalTypeOptions.minimum: skipped (nested-property-not-supported)
-- sku-nulls: skipped (array-items-not-flattened)
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.pattern: skipped (unsupported-pattern)
-- schema[it's "odd"].properties[Mixed Case].logicalTypeOptions.format: skipped (unsupported-pattern)
