from packata_sql.cli import main

raise SystemExit(main())
