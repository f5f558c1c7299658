{#- Test data with defects switched by environment variables PACKATA_DBT_<DEFECT>=true (DUP,
    BAD_EMAIL, NEG, DROP_STATUS, DROP_AMOUNT, EMPTY, EMAIL_INT): unlike --vars, a changed
    environment variable does not make dbt re-parse the whole project, which saves seconds per run.
    PACKATA_DBT_MARK tags every row with the invocation that built the table. -#}
{% macro orders_data() %}
with base as (
  select i as order_id,
         {% if env_var('PACKATA_DBT_EMAIL_INT', '') == 'true' %}i{% else %}case when {{ env_var('PACKATA_DBT_BAD_EMAIL', '') == 'true' }} and i % 2 = 0 then 'not-an-email' else 'user' || cast(i as varchar(10)) || '@example.com' end{% endif %} as email,
         case when {{ env_var('PACKATA_DBT_NEG', '') == 'true' }} and i = 3 then -5.00 else cast(i as decimal(10,2)) end as amount,
         case when i % 3 = 0 then 'shipped' else 'placed' end as status
  from (select 1 as i union all select 2 union all select 3 union all select 4 union all select 5
        union all select 6 union all select 7 union all select 8 union all select 9 union all select 10) n
  {% if env_var('PACKATA_DBT_DUP', '') == 'true' %}union all select 1, 'dup@example.com', 1.00, 'placed' from (select 1 as x) d1{% endif %}
)
select order_id, email{% if not env_var('PACKATA_DBT_DROP_AMOUNT', '') == 'true' %}, amount{% endif %}{% if not env_var('PACKATA_DBT_DROP_STATUS', '') == 'true' %}, status{% endif %},
       '{{ env_var('PACKATA_DBT_MARK', '') }}' as mark
from base
{% if env_var('PACKATA_DBT_EMPTY', '') == 'true' %}where 1 = 0{% endif %}
{% endmacro %}
