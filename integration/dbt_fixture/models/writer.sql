{#- PostgreSQL only: its plan holds an SQL rule that tries to write (nextval). -#}
{{ config(enabled=target.type == 'postgres') }}
select 1 as x
