{#- The check as an after_commit hook (named plan 'late'; the project-wide hook finds no plan
    packata_plan__late_orders and does nothing): it runs after COMMIT, so it can fail the run
    but cannot keep the old table. -#}
{{ config(post_hook=after_commit("{{ packata_sql_check('late') }}")) }}
{{ orders_data() }}
