{#- Odd names: a column with a space, a keyword column, a mixed-case alias, a custom schema. -#}
{{ config(alias='OddOrders', schema='custom') }}
select 1 as "Order Id", 'ok' as "select"
union all select 2, 'fine'
{% if env_var('PACKATA_DBT_ODD_DUP', '') == 'true' %}union all select 2, 'bad'{% endif %}
