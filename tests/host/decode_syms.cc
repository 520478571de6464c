// SPDX-License-Identifier: GPL-2.0
// tests/host/run, decode-symbols: a C++ function with a function inlined
// into it, decoded from a stripped binary whose names and lines are only
// in its separate debug file.
namespace ns {
static inline __attribute__((always_inline)) int triple(int x)
{
	int r = x * 3;

	asm volatile("" : "+r"(r));	// keeps its instruction its own
	return r;
}

__attribute__((noinline)) int work(int x)
{
	return triple(x) + 1;
}
} // namespace ns

int main(int argc, char **argv)
{
	(void)argv;
	return ns::work(argc);
}
