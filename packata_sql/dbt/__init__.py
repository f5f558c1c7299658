"""packata-sql inside dbt: generated post-hook macros (path 1) and manifest mapping (path 2).

Nothing here imports dbt: the post-hook path writes plain macros, and the manifest path reads
dbt's artifacts as JSON.
"""
