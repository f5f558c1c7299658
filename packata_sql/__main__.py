from packata_sql.cli.main import run

run()
