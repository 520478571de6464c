// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of tests/vm/decode_cpp.sh (C++, -O2 -g, static,
 * scripts/mkinitramfs.sh): a class with methods in a namespace, a
 * template and a function inlined at -O2, so decode's names must be
 * demangled and --lines must name the inlined function.  No libstdc++
 * (no iostream, no exceptions): the exact model single-steps every
 * instruction, and ld.so binding libstdc++ would cost seconds.
 */
#include <stdio.h>

namespace shapes {

/* inlined into Counter::step at -O2: addr2line -i shows it */
static inline int scale(int v, int k)
{
	int r = v * k;

	asm volatile("" : "+r"(r));	/* keeps its own instructions */
	return r + 1;
}

template <typename T> __attribute__((noinline)) T clamp_add(T a, T b, T hi)
{
	T s = a + b;

	return s > hi ? hi : s;
}

class Counter {
public:
	explicit Counter(int k) : k_(k), total_(0) {}
	__attribute__((noinline)) void step(int v);
	__attribute__((noinline)) long total() const { return total_; }

private:
	int k_;
	long total_;
};

void Counter::step(int v)
{
	total_ = clamp_add<long>(total_, scale(v, k_), 1L << 40);
}

} // namespace shapes

volatile int seed = 3;

int main()
{
	shapes::Counter c(seed);

	for (int i = 0; i < 40; i++)
		c.step(i);
	unsigned u = shapes::clamp_add<unsigned>(seed, 5u, 100u);
	printf("decode_cpp %ld %u\n", c.total(), u);
	return 0;
}
