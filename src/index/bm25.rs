//! BM25F, THE scoring formula of every ranking ralph does: files for a story ([`super::rank`])
//! and Pin entries for a query ([`crate::pin::search`]). Each names its fields, their weights
//! and length normalisation; the arithmetic is this one.
//!
//! For a term `t` and a document `d` with fields `f`:
//! `tf~ = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avglen_f)` and
//! `score = idf(t) · tf~ / (k1 + tf~)`, with `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`.
//! Pure. Does not count terms nor decide what a field is.

/// The parameters of a BM25F over `F` fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bm25f<const F: usize> {
    /// Term frequency saturation.
    pub k1: f64,
    /// Per field, how much a term found there counts.
    pub weight: [f64; F],
    /// Per field, how much a long field is discounted (0: not at all, 1: fully).
    pub b: [f64; F],
}

impl<const F: usize> Bm25f<F> {
    /// The inverse document frequency of a term found in `df` of `n` documents.
    pub(crate) fn idf(n: f64, df: f64) -> f64 {
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The average length of each field over `n` documents whose lengths add up to `total`
    /// (at least 1, so an empty corpus divides by nothing smaller).
    pub(crate) fn averages(n: usize, total: [f64; F]) -> [f64; F] {
        let n = n.max(1) as f64;
        total.map(|t| (t / n).max(1.0))
    }

    /// One term's contribution to one document: `tf` its count in each field, `len` the
    /// document's field lengths, `avg` the corpus's (see [`Bm25f::averages`]).
    pub(crate) fn score(&self, idf: f64, tf: [f64; F], len: [f64; F], avg: &[f64; F]) -> f64 {
        let mut tfw = 0.0;
        for f in 0..F {
            if tf[f] > 0.0 {
                let norm = 1.0 - self.b[f] + self.b[f] * len[f] / avg[f];
                tfw += self.weight[f] * tf[f] / norm;
            }
        }
        idf * tfw / (self.k1 + tfw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Bm25f<2> = Bm25f {
        k1: 1.2,
        weight: [3.0, 1.0],
        b: [0.0, 0.75],
    };

    #[test]
    fn rare_terms_weigh_more_and_counts_saturate() {
        assert!(Bm25f::<2>::idf(100.0, 1.0) > Bm25f::<2>::idf(100.0, 50.0));
        assert!(Bm25f::<2>::idf(100.0, 100.0) > 0.0, "never negative");
        let avg = [1.0, 10.0];
        let one = B.score(1.0, [0.0, 1.0], [1.0, 10.0], &avg);
        let ten = B.score(1.0, [0.0, 10.0], [1.0, 10.0], &avg);
        assert!(ten > one && ten < 1.0, "{one} {ten}");
    }

    #[test]
    fn heavier_fields_count_more_and_long_fields_less() {
        let avg = [1.0, 10.0];
        let in_first = B.score(1.0, [1.0, 0.0], [1.0, 10.0], &avg);
        let in_second = B.score(1.0, [0.0, 1.0], [1.0, 10.0], &avg);
        assert!(in_first > in_second);
        let long = B.score(1.0, [0.0, 1.0], [1.0, 100.0], &avg);
        assert!(long < in_second);
        // b = 0: the first field's length does not matter.
        assert_eq!(
            B.score(1.0, [1.0, 0.0], [1.0, 10.0], &avg),
            B.score(1.0, [1.0, 0.0], [50.0, 10.0], &avg)
        );
        assert_eq!(Bm25f::<2>::averages(0, [0.0, 5.0]), [1.0, 5.0]);
    }
}
