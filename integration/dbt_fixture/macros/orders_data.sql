{#- Test data with defects switched by vars: dup, bad_email, neg, drop_status, drop_amount,
    empty, email_int. -#}
{% macro orders_data() %}
with base as (
  select i as order_id,
         {% if var('email_int', false) %}i{% else %}case when {{ var('bad_email', false) }} and i % 2 = 0 then 'not-an-email' else 'user' || cast(i as varchar(10)) || '@example.com' end{% endif %} as email,
         case when {{ var('neg', false) }} and i = 3 then -5.00 else cast(i as decimal(10,2)) end as amount,
         case when i % 3 = 0 then 'shipped' else 'placed' end as status
  from (select 1 as i union all select 2 union all select 3 union all select 4 union all select 5
        union all select 6 union all select 7 union all select 8 union all select 9 union all select 10) n
  {% if var('dup', false) %}union all select 1, 'dup@example.com', 1.00, 'placed' from (select 1 as x) d1{% endif %}
)
select order_id, email{% if not var('drop_amount', false) %}, amount{% endif %}{% if not var('drop_status', false) %}, status{% endif %}
from base
{% if var('empty', false) %}where 1 = 0{% endif %}
{% endmacro %}
