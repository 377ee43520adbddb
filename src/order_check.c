/* order_check.c - see order_check.h. */
#include "order_check.h"

void order_check_init(order_check *m, const keys_spec *s, int strict)
{
	*m = (order_check){ .s = s, .R = s->record_size, .strict = strict, .how = ORDER_CMP_KEYS };
	if (!keys_native_init(s, &m->nat) && m->nat.width == m->R)
		m->how = m->R == 8 ? ORDER_CMP_NATIVE64 : ORDER_CMP_NATIVE32;
	else if (!keys_word_init(s, &m->word) && m->word.width == m->R)
		m->how = ORDER_CMP_WORD;
}

/* The native key of the record at r (ORDER_CMP_NATIVE32/64, ORDER_CMP_WORD). */
static inline uint64_t key_of(const order_check *m, int how, const uint8_t *r)
{
	if (how == ORDER_CMP_NATIVE64)
		return keys_native_enc64(&m->nat, keys_load64(r));
	if (how == ORDER_CMP_NATIVE32)
		return keys_native_enc32(&m->nat, keys_load32(r));
	return keys_word_enc(&m->word, m->R == 8 ? keys_load64(r) : keys_load32(r));
}

size_t order_check_first(const order_check *m, size_t i, size_t hi)
{
	const int strict = m->strict, how = m->how;
	const size_t R = m->R;
	if (how == ORDER_CMP_KEYS) {
		for (; i < hi; i++) {
			int c = keys_compare(m->s, m->p + (i - 1) * R, m->p + i * R);
			if (c > 0 || (strict && c == 0))
				return i;
		}
		return SIZE_MAX;
	}
	uint64_t prev = i < hi ? key_of(m, how, m->p + (i - 1) * R) : 0;
	for (; i < hi; i++) {
		uint64_t cur = key_of(m, how, m->p + i * R);
		if (cur < prev || (strict && cur == prev))
			return i;
		prev = cur;
	}
	return SIZE_MAX;
}

int order_check_pair(const order_check *m, const uint8_t *a, const uint8_t *b)
{
	if (m->how == ORDER_CMP_KEYS) {
		int c = keys_compare(m->s, a, b);
		return c > 0 || (m->strict && c == 0);
	}
	uint64_t x = key_of(m, m->how, a), y = key_of(m, m->how, b);
	return y < x || (m->strict && x == y);
}
