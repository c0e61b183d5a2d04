# Two entry points; both install what they need (scripts/setup.sh) and are fast when run again.
# `make web` builds the browser page as a static folder (web/README.md); `make fuzz` runs the long
# fuzzing campaigns (scripts/fuzz.sh: FUZZ_RUNS, FUZZ_SECONDS and FUZZERS tune it); `make test-vulkan`
# runs the GPU tests again through Dawn's Vulkan backend on a software driver (scripts/test_vulkan.sh).
.PHONY: demo test web fuzz test-vulkan

demo:
	@bash scripts/demo.sh

test:
	@bash scripts/test.sh

web:
	@bash scripts/build_web.sh

fuzz:
	@bash scripts/fuzz.sh

test-vulkan:
	@bash scripts/test_vulkan.sh
