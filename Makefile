# Two entry points; both install what they need (scripts/setup.sh) and are fast when run again.
# `make web` builds the browser page as a static folder (web/README.md).
.PHONY: demo test web

demo:
	@bash scripts/demo.sh

test:
	@bash scripts/test.sh

web:
	@bash scripts/build_web.sh
