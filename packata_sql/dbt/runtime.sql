{#- The dbt side of packata-sql: attach once in dbt_project.yml,
      models: my_project: +post-hook: "{{ packata_sql_check() }}"
    It finds the generated macro packata_plan__<model>(), measures on dbt's connection inside the
    model's transaction, decides with exact integer arithmetic and returns '' so dbt runs nothing
    more. A failed error-severity rule raises: the model ends `error`, downstream nodes are
    skipped and, where the hook runs inside the model's transaction (DuckDB, PostgreSQL), the new
    table is rolled back. Jinja cannot catch an engine error, so predictable problems (missing
    column, type mismatch, zero rows, missing parameter) are decided before any statement runs.
    vars: packata_sql_enabled (true), packata_sql_fail_on (error|warning),
          packata_sql_incomplete (warn|error), packata_sql_params ({name: value}),
          packata_sql_timeout_s (300), packata_sql_trust_environment (false),
          packata_sql_observed_at (an ISO instant with a zone; default run_started_at) -#}

{% macro packata_sql_check(name=none) %}
  {%- if not execute or not var('packata_sql_enabled', true) -%}{{ return('') }}{%- endif -%}
  {%- set key = name or model.name -%}
  {%- set plan_macro = context.get('packata_plan__' ~ key) -%}
  {%- if plan_macro is none -%}
    {%- if name -%}
      {{ exceptions.raise_compiler_error("packata-sql: no plan for '" ~ name ~ "'. Run: packata-sql dbt generate CONTRACT --project-dir .") }}
    {%- endif -%}
    {{ log("packata-sql " ~ model.name ~ " | no plan for this model", info=false) }}
    {{ return('') }}
  {%- endif -%}
  {%- if var('packata_sql_fail_on', 'error') not in ('error', 'warning') or var('packata_sql_incomplete', 'warn') not in ('warn', 'error') -%}
    {{ exceptions.raise_compiler_error("packata-sql: the var packata_sql_fail_on is error or warning, and packata_sql_incomplete is warn or error") }}
  {%- endif -%}
  {%- set plan = plan_macro() -%}
  {%- set state = {"read_only": "none", "trusted": var('packata_sql_trust_environment', false) in (true, 'true', 'True')} -%}
  {%- set compiled = plan.dialects.get(target.type) -%}
  {%- set results = [] -%}
  {%- if compiled is none -%}
    {%- for rule in plan.rules -%}
      {%- do results.append(packata_sql_result(rule, state, "skipped", code="dialect-not-generated")) -%}
    {%- endfor -%}
    {{ return(packata_sql_conclude(plan, results, state)) }}
  {%- endif -%}
  {%- set relation = this.render() -%}
  {%- do adapter.dispatch('packata_sql_begin')(state) -%}
  {%- set present = adapter.dispatch('packata_sql_columns')(compiled.exact_names) -%}

  {#- Library rules (and Expressif value, row and dataset rules): one fused scan over the rules
      whose columns exist with a compiled family -#}
  {%- set fused = [] -%}
  {%- set observed = packata_sql_observed_at() -%}
  {%- set given = var('packata_sql_params', {}) -%}
  {%- for rule in plan.rules if rule.kind in ('library', 'latency') -%}
    {%- set entry = compiled.rules[rule.key] -%}
    {#- An Expressif variable: the observation time, the rule's argument, else the run's
        packata_sql_params value, each bound by the driver. -#}
    {%- set values = [] -%}{%- set unbound = [] -%}
    {%- for name in entry.get('binds', []) -%}
      {%- if name == entry.observation -%}{%- do values.append(observed) -%}
      {%- elif name in entry.arguments -%}{%- do values.append(entry.arguments[name]) -%}
      {%- elif name in given -%}{%- do values.append(given[name]) -%}
      {%- else -%}{%- do unbound.append(name) -%}{%- endif -%}
    {%- endfor -%}
    {%- set missing = [] -%}{%- set families = [] -%}
    {%- for c in entry.get('columns', []) -%}
      {%- set found = present.get(c if compiled.exact_names else c | lower) -%}
      {%- if found is none -%}{%- do missing.append(c) -%}
      {%- else -%}{%- do families.append(packata_sql_family(compiled.types, found)) -%}{%- endif -%}
    {%- endfor -%}
    {%- if entry.status is defined -%}
      {%- do results.append(packata_sql_result(rule, state, entry.status, code=entry.code)) -%}
    {%- elif unbound -%}
      {%- do results.append(packata_sql_result(rule, state, "skipped", code="missing-parameter")) -%}
    {%- elif missing -%}
      {%- do results.append(packata_sql_result(rule, state, "inconclusive", code="missing-column")) -%}
    {%- elif entry.variants.get(families | join(','), entry.variants.get('*')) is none -%}
      {%- do results.append(packata_sql_result(rule, state, "inconclusive", code="type-mismatch")) -%}
    {%- else -%}
      {%- set found = present.get(entry.columns[0] if compiled.exact_names else entry.columns[0] | lower) if entry.columns else none -%}
      {%- set holds_instants = found in compiled.get('instants', []) -%}
      {#- A date or timestamp bound on a column of instants compares instants: its own variant. -#}
      {%- set variant = entry.variants.get(families | join(',') ~ '@instants') if holds_instants else none -%}
      {%- do fused.append([rule, variant or entry.variants.get(families | join(','), entry.variants.get('*')), holds_instants, values]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if fused -%}
    {%- set items = [] -%}{%- set bindings = [] -%}
    {%- for pair in fused -%}{%- do items.append(pair[1] | join(relation)) -%}{%- do bindings.extend(pair[3]) -%}{%- endfor -%}
    {%- set cell = packata_sql_fetch(compiled.scan.head ~ ", " ~ (items | join(", ")) ~ (compiled.scan['from'] | join(relation)), bindings) -%}
    {%- set rows = cell.rows[0][0] -%}
    {%- for pair in fused -%}
      {%- set rule = pair[0] -%}
      {%- set count = packata_sql_exact_cell(cell.rows[0][loop.index]) -%}
      {%- if rule.kind == 'latency' -%}
        {%- set aged = packata_sql_latency(rule.latency, count, rows, pair[2], observed, modules.datetime, modules.pytz) -%}
        {%- do results.append(packata_sql_result(rule, state, aged.status, code=aged.get('code'), value=aged.get('value'), evidence={"rows": rows}, failed=aged.failed, fused=fused | length > 1)) -%}
      {%- elif count.kind == 'null' -%}
        {#- an Expressif value or row rule's count is NULL only for a text cell the language reads otherwise than as its text -#}
        {%- do results.append(packata_sql_result(rule, state, "inconclusive", code="expressif-in-band-value" if rule.get('population') else "null-result", fused=fused | length > 1)) -%}
      {%- elif count.kind != 'number' -%}
        {%- do results.append(packata_sql_result(rule, state, "inconclusive", code="not-a-number", fused=fused | length > 1)) -%}
      {%- elif rule.get('population') and rows == 0 -%}
        {%- do results.append(packata_sql_result(rule, state, "inconclusive", code="empty-population", fused=fused | length > 1)) -%}
      {%- elif rule.get('boolean') -%}
        {%- do results.append(packata_sql_judged(rule, state, {"kind": "bool", "value": count.num != 0}, {"rows": rows}, fused | length > 1)) -%}
      {%- elif rule.unit == 'percent' and rows == 0 -%}
        {%- do results.append(packata_sql_result(rule, state, "inconclusive", code="zero-rows", evidence={"numerator": count.num // count.den, "denominator": 0}, fused=fused | length > 1)) -%}
      {%- elif rule.unit == 'percent' -%}
        {%- set value = {"kind": "number", "num": 100 * count.num, "den": rows * count.den} -%}
        {%- do results.append(packata_sql_judged(rule, state, value, {"numerator": count.num // count.den, "denominator": rows}, fused | length > 1)) -%}
      {%- else -%}
        {%- do results.append(packata_sql_judged(rule, state, count, {"rows": rows}, fused | length > 1)) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}

  {#- SQL rules, as written: one result set of one row and one column; {param:NAME} values come
      from the var packata_sql_params and are bound by the driver. -#}
  {%- for rule in plan.rules if rule.kind == 'sql' -%}
    {%- set entry = compiled.rules[rule.key] -%}
    {%- set missing = [] -%}{%- set values = [] -%}
    {%- for p in entry.get('parameters', []) -%}
      {%- if p in given -%}{%- do values.append(given[p]) -%}{%- else -%}{%- do missing.append(p) -%}{%- endif -%}
    {%- endfor -%}
    {%- if entry.status is defined -%}
      {%- do results.append(packata_sql_result(rule, state, entry.status, code=entry.code)) -%}
    {%- elif missing -%}
      {%- do results.append(packata_sql_result(rule, state, "skipped", code="missing-parameter")) -%}
    {%- elif not state.sql_allowed -%}
      {%- do results.append(packata_sql_result(rule, state, "error", code="read-only-not-guaranteed")) -%}
    {%- elif adapter.dispatch('packata_sql_unfollowed')(entry.get('calls', [])) -%}
      {%- do results.append(packata_sql_result(rule, state, "error", code="denied-function")) -%}
    {%- else -%}
      {%- set cell = packata_sql_fetch(entry.sql | join(relation), values) -%}
      {%- if cell.width == 0 -%}{%- do results.append(packata_sql_result(rule, state, "inconclusive", code="no-result-set")) -%}
      {%- elif cell.width > 1 -%}{%- do results.append(packata_sql_result(rule, state, "inconclusive", code="several-columns")) -%}
      {%- elif cell.rows | length == 0 -%}{%- do results.append(packata_sql_result(rule, state, "inconclusive", code="no-rows")) -%}
      {%- elif cell.rows | length > 1 -%}{%- do results.append(packata_sql_result(rule, state, "inconclusive", code="several-rows")) -%}
      {%- else -%}
        {%- set value = packata_sql_exact_cell(cell.rows[0][0]) -%}
        {%- if value.kind == 'null' -%}{%- do results.append(packata_sql_result(rule, state, "inconclusive", code="null-result")) -%}
        {%- elif value.kind == 'bad' -%}{%- do results.append(packata_sql_result(rule, state, "inconclusive", code="not-a-number")) -%}
        {%- elif value.kind == 'range' -%}{%- do results.append(packata_sql_result(rule, state, "inconclusive", code="value-out-of-range")) -%}
        {%- else -%}{%- do results.append(packata_sql_judged(rule, state, value, none, false)) -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do adapter.dispatch('packata_sql_end')(state) -%}

  {%- for rule in plan.rules if rule.kind == 'other' -%}
    {%- set entry = compiled.rules[rule.key] -%}
    {%- do results.append(packata_sql_result(rule, state, entry.get("status", "skipped"), code=entry.get('code'))) -%}
  {%- endfor -%}
  {{ return(packata_sql_conclude(plan, results, state)) }}
{% endmacro %}


{#- A live column type as the family the plan was compiled for: names as the dialect reports
    them, looked up whole, then without their (…) arguments; unknown names are 'other'. -#}
{% macro packata_sql_family(types, type_name) %}
  {%- set name = type_name | string -%}
  {%- set bare = name.split('(')[0] | trim -%}
  {{ return(types.get(name, types.get(bare, types.get(bare | upper, types.get(bare | lower, 'other'))))) }}
{% endmacro %}


{#- The live columns: name (folded when the engine matches names case-insensitively) → type. -#}
{% macro default__packata_sql_columns(exact_names) %}
  {%- set found = {} -%}
  {%- for column in adapter.get_columns_in_relation(this) -%}
    {%- do found.update({(column.name if exact_names else column.name | lower): column.dtype}) -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{#- PostgreSQL: the type names the CLI's session classifies (pg_type.typname, 'enum' for enums,
    a domain's base type, as the driver reports it). -#}
{% macro postgres__packata_sql_columns(exact_names) %}
  {%- set cell = packata_sql_fetch("SELECT a.attname, CASE t.typtype WHEN 'e' THEN 'enum' ELSE t.typname END FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace JOIN pg_catalog.pg_type d ON d.oid = a.atttypid JOIN pg_catalog.pg_type t ON t.oid = CASE d.typtype WHEN 'd' THEN d.typbasetype ELSE d.oid END WHERE n.nspname = %s AND c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped", [this.schema, this.identifier], 100000) -%}
  {%- set found = {} -%}
  {%- for row in cell.rows -%}{%- do found.update({row[0]: row[1]}) -%}{%- endfor -%}
  {{ return(found) }}
{% endmacro %}


{#- One statement, `limit` rows at most (2: enough to see a second row), the driver's own values. -#}
{% macro packata_sql_fetch(sql, bindings, limit=2) %}
  {{ return(adapter.dispatch('packata_sql_fetch')(sql, bindings, limit)) }}
{% endmacro %}

{% macro default__packata_sql_fetch(sql, bindings, limit) %}
  {%- set cursor = adapter.add_query(sql, auto_begin=False, bindings=bindings)[1] -%}
  {%- set width = (cursor.description or []) | length -%}
  {{ return({"width": width, "rows": cursor.fetchmany(limit) if width else []}) }}
{% endmacro %}

{#- PostgreSQL: DECLARE accepts exactly one SELECT/VALUES/WITH, as in packata-sql's session.
    The list of bindings is always passed, so psycopg2 reads the generated `%%` as `%`. -#}
{% macro postgres__packata_sql_fetch(sql, bindings, limit) %}
  {%- do adapter.add_query("DECLARE packata_sql_cell NO SCROLL CURSOR FOR " ~ sql, auto_begin=False, bindings=bindings) -%}
  {%- set cursor = adapter.add_query("FETCH " ~ limit ~ " FROM packata_sql_cell", auto_begin=False, bindings=[])[1] -%}
  {%- set width = (cursor.description or []) | length -%}
  {%- set rows = cursor.fetchall() -%}
  {%- do adapter.add_query("CLOSE packata_sql_cell", auto_begin=False, bindings=[]) -%}
  {{ return({"width": width, "rows": rows}) }}
{% endmacro %}


{#- Whether a function the rule calls could carry what the deny-list refuses (a denied call or
    statement, dynamic SQL, a more powerful definer) past it, followed into function bodies.
    PostgreSQL: one catalog query, stricter than the CLI's walk; elsewhere nothing to follow. -#}
{% macro default__packata_sql_unfollowed(calls) %}{{ return(false) }}{% endmacro %}
{% macro postgres__packata_sql_unfollowed(calls) %}
  {%- if not calls -%}{{ return(false) }}{%- endif -%}
  {{ return(packata_sql_fetch(__UNFOLLOWED_CALLS__, [calls]).rows[0][0]) }}
{% endmacro %}


{#- DuckDB and others: dbt's one connection is read-write, so only packata-sql's own generated
    SELECTs run unless the environment is trusted. -#}
{% macro default__packata_sql_begin(state) %}
  {%- do state.update({"read_only": "trusted" if state.trusted else "dbt-connection", "sql_allowed": state.trusted}) -%}
  {{ return('') }}
{% endmacro %}
{% macro default__packata_sql_end(state) %}{{ return('') }}{% endmacro %}

{#- PostgreSQL: the checks run read-only. Inside the model's transaction (the usual post-hook) a
    savepoint makes the subtransaction read-only, and rolling back to it restores read-write for
    dbt's COMMIT; outside one (after_commit, or after a before_begin hook's raw `commit;`) they get
    their own BEGIN READ ONLY … ROLLBACK. libpq's own status tells which. SQL rules run only when
    the login cannot escape a read-only transaction (the CLI's inspection) or the environment is
    trusted. -#}
{% macro postgres__packata_sql_begin(state) %}
  {%- set conn = adapter.add_query("SELECT 1", auto_begin=False, bindings=[])[0] -%}
  {%- set in_transaction = conn.handle.info.transaction_status == 2 -%}
  {%- do state.update({"savepoint": in_transaction}) -%}
  {%- if in_transaction -%}
    {%- do adapter.add_query("SAVEPOINT packata_sql_checks", auto_begin=False, bindings=[]) -%}
    {%- do adapter.add_query("SET TRANSACTION READ ONLY", auto_begin=False, bindings=[]) -%}
  {%- else -%}
    {{ log("packata-sql " ~ model.name ~ " | note | the model is not inside a transaction here: a failure is reported but cannot roll the model back", info=true) }}
    {%- do adapter.add_query("BEGIN READ ONLY", auto_begin=False, bindings=[]) -%}
  {%- endif -%}
  {%- do adapter.add_query("SELECT set_config('statement_timeout', %s, true), set_config('standard_conforming_strings', 'on', true)", auto_begin=False, bindings=[((var('packata_sql_timeout_s', 300) | float) * 1000) | int | string]) -%}
  {%- set risks = packata_sql_fetch(__RISKY_LOGIN__, []).rows[0] -%}
  {%- set risky = risks | select | list | length > 0 -%}
  {%- do state.update({"read_only": "trusted" if (risky and state.trusted) else "enforced", "sql_allowed": state.trusted or not risky}) -%}
  {{ return('') }}
{% endmacro %}
{% macro postgres__packata_sql_end(state) %}
  {%- if state.savepoint -%}
    {%- do adapter.add_query("ROLLBACK TO SAVEPOINT packata_sql_checks", auto_begin=False, bindings=[]) -%}
    {%- do adapter.add_query("RELEASE SAVEPOINT packata_sql_checks", auto_begin=False, bindings=[]) -%}
  {%- else -%}
    {%- do adapter.add_query("ROLLBACK", auto_begin=False, bindings=[]) -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}


{#- One rule's result, logged at once, so an engine error in a later rule does not hide it.
    Lines hold no SQL and no row values. -#}
{% macro packata_sql_result(rule, state, status, code=none, value=none, evidence=none, failed=[], fused=false) %}
  {%- set shown = none -%}
  {%- if value is sameas true or value is sameas false -%}{%- set shown = value | string | lower -%}
  {%- elif value is not none -%}{%- set shown = packata_sql_display(value[0], value[1]) -%}{%- endif -%}
  {%- set r = {"key": rule.key, "said": rule.get("said", rule.key), "severity": rule.severity, "status": status, "unit": rule.unit,
               "value": value, "shown": shown, "evidence": evidence, "failed": failed, "diagnostic": code, "fused": fused,
               "latency": rule.kind == 'latency'} -%}
  {{ log("packata-sql " ~ model.name ~ " | " ~ status ~ (" (" ~ rule.severity ~ ")" if status == 'failed' else "") ~ " | " ~ r.said ~ (" | " ~ packata_sql_value(r) if shown is not none else "") ~ (" | " ~ packata_sql_expected(r) if failed else "") ~ (" | " ~ code if code else ""), info=true) }}
  {{ log("PACKATA_SQL_RESULT " ~ tojson({"model": model.unique_id, "read_only": state.read_only, "result": r}), info=false) }}
  {{ return(r) }}
{% endmacro %}

{% macro packata_sql_judged(rule, state, value, evidence, fused) %}
  {%- set v = packata_sql_verdict(rule.expectations, value) -%}
  {%- set raw = value.value if value.kind == 'bool' else [value.num, value.den] -%}
  {{ return(packata_sql_result(rule, state, v.status, code=v.get('code'), value=raw, evidence=evidence, failed=v.failed, fused=fused)) }}
{% endmacro %}

{#- num/den in plain notation, six places at most (display only; verdicts use the exact pair). -#}
{% macro packata_sql_display(num, den) %}
  {%- set sign = '-' if (num < 0) != (den < 0) and num != 0 else '' -%}
  {%- set n = num if num >= 0 else 0 - num -%}{%- set d = den if den >= 0 else 0 - den -%}
  {%- set scaled = (n * 1000000 + d // 2) // d -%}
  {%- set whole = scaled // 1000000 -%}{%- set frac = '%06d' % (scaled % 1000000) -%}
  {%- set frac = frac.rstrip('0') -%}
  {{ return(sign ~ whole ~ ('.' ~ frac if frac else '')) }}
{% endmacro %}


{#- Logs the summary and decides what dbt sees (dbt.md §6.3). -#}
{% macro packata_sql_conclude(plan, results, state) %}
  {%- set counts = {"passed": 0, "failed": 0, "error": 0, "inconclusive": 0, "skipped": 0} -%}
  {%- set blocking = [] -%}{%- set warned = [] -%}{%- set incomplete = [] -%}
  {%- set fail_on = var('packata_sql_fail_on', 'error') -%}
  {%- for r in results -%}
    {%- do counts.update({r.status: counts[r.status] + 1}) -%}
    {%- if r.status == 'failed' and (r.severity == 'error' or fail_on == 'warning') -%}{%- do blocking.append(packata_sql_failure(r)) -%}
    {%- elif r.status == 'failed' -%}{%- do warned.append(packata_sql_failure(r)) -%}
    {%- elif r.status in ('error', 'inconclusive', 'skipped') -%}{%- do incomplete.append(r.get("said", r.key) ~ " " ~ r.status ~ (" " ~ r.diagnostic if r.diagnostic else "")) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for f in plan.get('findings', []) -%}{%- do incomplete.append(f.code ~ " at " ~ f.source_path) -%}{%- endfor -%}
  {{ log("PACKATA_SQL_RUN " ~ tojson({"model": model.unique_id, "relation": this.render(), "read_only": state.read_only, "contract": plan.contract, "contract_sha256": plan.contract_sha256, "packata_sql": plan.packata_sql, "counts": counts}), info=false) }}
  {%- set summary = "packata-sql " ~ model.name ~ ": " ~ counts.passed ~ " passed, " ~ counts.failed ~ " failed, " ~ counts.error ~ " error, " ~ counts.inconclusive ~ " inconclusive, " ~ counts.skipped ~ " skipped (read-only: " ~ state.read_only ~ ")" -%}
  {#- dbt's final message for the model: every blocking failure with its value and expectation,
      then what else it would have warned about (dbt shows only this message at the end). -#}
  {%- set rest = ("; warning-severity failures: " ~ (warned | join(", ")) if warned else "") -%}
  {%- if blocking -%}
    {{ exceptions.raise_compiler_error(summary ~ "; failed: " ~ (blocking | join(", ")) ~ rest ~ ("; not decided: " ~ (incomplete | join(", ")) if incomplete else "")) }}
  {%- endif -%}
  {%- if incomplete and var('packata_sql_incomplete', 'warn') == 'error' -%}
    {{ exceptions.raise_compiler_error(summary ~ "; incomplete: " ~ (incomplete | join(", ")) ~ rest) }}
  {%- endif -%}
  {%- if warned -%}{%- do exceptions.warn(summary ~ "; warning-severity failures: " ~ (warned | join(", "))) -%}{%- endif -%}
  {%- if incomplete -%}{%- do exceptions.warn(summary ~ "; not decided: " ~ (incomplete | join(", "))) -%}{%- endif -%}
  {%- if not warned and not incomplete -%}{{ log(summary, info=true) }}{%- endif -%}
  {{ return('') }}
{% endmacro %}


{#- The run's observation instant (aware): the var packata_sql_observed_at, else dbt's run_started_at. -#}
{% macro packata_sql_observed_at() %}
  {%- set given = var('packata_sql_observed_at', none) -%}
  {%- if given is none -%}{{ return(run_started_at.astimezone(modules.pytz.utc)) }}{%- endif -%}
  {%- set parsed = modules.datetime.datetime.fromisoformat(given | string | replace('Z', '+00:00')) -%}
  {%- if parsed.tzinfo is none -%}
    {{ exceptions.raise_compiler_error("packata-sql: the var packata_sql_observed_at needs a time zone (e.g. 2026-12-01T08:00:00Z)") }}
  {%- endif -%}
  {{ return(parsed.astimezone(modules.pytz.utc)) }}
{% endmacro %}


{#- Pure Jinja from here on: no dbt context, so the unit suite checks it with plain jinja2 against
    packata_sql.contracts.expectations.verdict. Numbers are exact [numerator, denominator] pairs of ints. -#}

{#- A measured value in words, as the gate's log lines and final message say it (defined before
    its callers): `value 1 row`, `value 50 %`, `value 90061 s old`, `value false`, `no value`. -#}
{% macro packata_sql_value(r) %}
  {%- if r.shown is none -%}{{ return('no value') }}{%- endif -%}
  {%- if r.shown in ('true', 'false') or not r.unit and not r.latency -%}{{ return('value ' ~ r.shown) }}{%- endif -%}
  {%- if r.latency -%}{{ return('value ' ~ r.shown ~ ' s old') }}{%- endif -%}
  {%- if r.unit == 'rows' -%}{{ return('value ' ~ r.shown ~ (' row' if r.shown == '1' else ' rows')) }}{%- endif -%}
  {{ return('value ' ~ r.shown ~ (' %' if r.unit == 'percent' else ' ' ~ r.unit)) }}
{% endmacro %}

{#- `expected < 10 %`: the expectations the value failed -#}
{% macro packata_sql_expected(r) %}
  {{ return('expected ' ~ (r.failed | join(' and ')) ~ (' %' if r.unit == 'percent' else '')) }}
{% endmacro %}

{#- A failed rule as dbt's final message names it: its key, the value measured and what was
    expected (`order_id_unique (value 1 row, expected = 0)`); no SQL, no row values. -#}
{% macro packata_sql_failure(r) %}
  {%- set expected = (', ' ~ packata_sql_expected(r)) if r.failed else '' -%}
  {{ return(r.get('said', r.key) ~ ' (' ~ packata_sql_value(r) ~ expected ~ ')') }}
{% endmacro %}

{#- A driver cell as an exact measurement: {"kind": "bool"|"number"|"null"|"bad"|"range", …}. Floats keep
    their shortest decimal reading, as packata_sql.values.measured_value does. -#}
{% macro packata_sql_exact_cell(value) %}
  {%- if value is none -%}{{ return({"kind": "null"}) }}{%- endif -%}
  {%- if value is sameas true or value is sameas false -%}{{ return({"kind": "bool", "value": value}) }}{%- endif -%}
  {%- if value is integer -%}
    {%- set sig = (value | abs | string).rstrip('0') -%}
    {%- if sig | length > 38 or (value | abs | string | length) - 1 > 324 -%}{{ return({"kind": "range"}) }}{%- endif -%}
    {{ return({"kind": "number", "num": value, "den": 1}) }}
  {%- endif -%}
  {%- if value is string -%}{{ return({"kind": "bad"}) }}{%- endif -%}
  {%- set m = modules.re.match('^([-+]?)([0-9]*)(?:[.]([0-9]*))?(?:[eE]([-+]?[0-9]+))?$', value | string) -%}
  {%- if m is none or ((m.group(2) or '') ~ (m.group(3) or '')) == '' -%}{{ return({"kind": "bad"}) }}{%- endif -%}
  {%- set frac = m.group(3) or '' -%}
  {%- set digits = ((m.group(2) or '') ~ frac) | int -%}
  {%- set exp10 = (m.group(4) or '0') | int - (frac | length) -%}
  {#- values.measured_value's bound: no more than 38 significant digits, no decimal exponent
      beyond ±324, so no measurement can spell a table's rows into the log -#}
  {%- set sig = ((m.group(2) or '') ~ frac).lstrip('0') -%}
  {%- if sig != '' and (sig.rstrip('0') | length > 38 or (exp10 + (sig | length) - 1) | abs > 324) -%}
    {{ return({"kind": "range"}) }}
  {%- endif -%}
  {%- set sign = -1 if m.group(1) == '-' else 1 -%}
  {%- if exp10 >= 0 -%}
    {{ return({"kind": "number", "num": sign * digits * (10 ** exp10), "den": 1}) }}
  {%- endif -%}
  {{ return({"kind": "number", "num": sign * digits, "den": 10 ** (0 - exp10)}) }}
{% endmacro %}

{#- -1, 0, 1 for a/b against c/d (b, d > 0) -#}
{% macro packata_sql_cmp(a, b, c, d) %}
  {%- set left = a * d -%}{%- set right = c * b -%}
  {{ return(-1 if left < right else (1 if left > right else 0)) }}
{% endmacro %}

{% macro packata_sql_holds(e, value) %}
  {%- if value.kind == 'bool' -%}
    {{ return(value.value == e.operand if e.op == 'mustBe' else value.value != e.operand) }}
  {%- endif -%}
  {%- if e.low is defined -%}
    {%- set lo = packata_sql_cmp(value.num, value.den, e.low[0], e.low[1]) -%}
    {%- set hi = packata_sql_cmp(value.num, value.den, e.high[0], e.high[1]) -%}
    {%- set inside = (lo >= 0 and hi <= 0) if e.inclusive else (lo > 0 and hi < 0) -%}
    {{ return(inside if e.op == 'mustBeBetween' else not inside) }}
  {%- endif -%}
  {%- set c = packata_sql_cmp(value.num, value.den, e.operand[0], e.operand[1]) -%}
  {{ return({'mustBe': c == 0, 'mustNotBe': c != 0, 'mustBeGreaterThan': c > 0,
             'mustBeGreaterOrEqualTo': c >= 0, 'mustBeLessThan': c < 0,
             'mustBeLessOrEqualTo': c <= 0}[e.op]) }}
{% endmacro %}

{#- packata_sql.contracts.expectations.verdict on an exact value: {status, failed, code?} -#}
{% macro packata_sql_verdict(expectations, value) %}
  {%- if expectations | length == 0 -%}
    {%- if value.kind == 'bool' -%}
      {{ return({"status": "passed", "failed": []} if value.value else {"status": "failed", "failed": ["= true"]}) }}
    {%- endif -%}
    {{ return({"status": "inconclusive", "code": "no-expectation", "failed": []}) }}
  {%- endif -%}
  {%- for e in expectations -%}
    {%- set operand_is_bool = (e.operand is defined) and (e.operand is sameas true or e.operand is sameas false) -%}
    {%- if (value.kind == 'bool') != operand_is_bool -%}
      {{ return({"status": "inconclusive", "code": "type-mismatch", "failed": []}) }}
    {%- endif -%}
  {%- endfor -%}
  {%- set failed = [] -%}
  {%- for e in expectations -%}
    {%- if not packata_sql_holds(e, value) -%}{%- do failed.append(e.text) -%}{%- endif -%}
  {%- endfor -%}
  {{ return({"status": "failed" if failed else "passed", "failed": failed}) }}
{% endmacro %}


{#- An SLA latency's verdict (docs/semantics.md 1.1), as run/freshness.py decides it: `newest` the
    scan's epoch microseconds, `instants` whether the column holds instants (else its wall
    clock is read in latency.zone), `observed` the aware observation instant, `datetime` and
    `pytz` dbt's modules. Exact: integer microseconds, and calendar months on the calendar. -#}
{% macro packata_sql_latency(latency, newest, rows, instants, observed, datetime, pytz) %}
  {%- if latency is none -%}{{ return({"status": "skipped", "code": "invalid-sla-value", "failed": []}) }}{%- endif -%}
  {%- if newest.kind == 'null' -%}
    {{ return({"status": "inconclusive", "code": "zero-rows-latency" if rows == 0 else "all-null-latency", "failed": []}) }}
  {%- endif -%}
  {%- if newest.kind != 'number' or newest.den != 1 -%}{{ return({"status": "inconclusive", "code": "not-a-number", "failed": []}) }}{%- endif -%}
  {%- set dt = datetime.datetime -%}{%- set td = datetime.timedelta -%}
  {%- set wall = dt(1970, 1, 1) + td(microseconds=newest.num) -%}
  {%- if instants or latency.zone == 'UTC' -%}{%- set instant = pytz.utc.localize(wall) -%}
  {%- else -%}
    {#- As zoneinfo's fold=0: an ambiguous wall clock takes its first reading, a missing one the offset before the gap. -#}
    {%- set tz = pytz.timezone(latency.zone) -%}
    {%- set first = tz.localize(wall, is_dst=true) -%}
    {%- set instant = (first if tz.normalize(first).replace(tzinfo=none) == wall else tz.localize(wall, is_dst=false)).astimezone(pytz.utc) -%}
  {%- endif -%}
  {%- set age = observed - instant -%}
  {%- set age_us = (age.days * 86400 + age.seconds) * 1000000 + age.microseconds -%}
  {%- if latency.micros is not none -%}
    {%- set fresh = age_us <= latency.micros -%}
  {%- else -%}
    {%- set index = observed.year * 12 + observed.month - 1 - latency.months -%}
    {%- set year = index // 12 -%}{%- set month = index % 12 + 1 -%}
    {%- set first_next = dt(year + month // 12, month % 12 + 1, 1) -%}
    {%- set last = (first_next - td(days=1)).day -%}
    {%- set limit = observed.replace(year=year, month=month, day=[observed.day, last] | min) -%}
    {%- set fresh = instant >= limit -%}
  {%- endif -%}
  {{ return({"status": "passed" if fresh else "failed", "value": [age_us, 1000000], "failed": [] if fresh else [latency.text]}) }}
{% endmacro %}
