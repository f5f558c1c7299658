from packata_sql.cli.main import main

raise SystemExit(main())
