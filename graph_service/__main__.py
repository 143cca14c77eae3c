"""`python -m graph_service` runs the command line (see graph_service.cli)."""

from graph_service.cli import main

raise SystemExit(main())
