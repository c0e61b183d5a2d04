# Two entry points; both install what they need (scripts/setup.sh) and are fast when run again.
.PHONY: demo test

demo:
	@bash scripts/demo.sh

test:
	@bash scripts/test.sh
