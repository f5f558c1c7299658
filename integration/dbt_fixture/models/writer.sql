{#- PostgreSQL only: its plan holds an SQL rule that tries to write (a function that inserts). -#}
{{ config(enabled=target.type == 'postgres') }}
select 1 as x
