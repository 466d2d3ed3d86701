//! The ports against what they port: xdiff's Myers (without `minimal`) must
//! mark exactly what gix's port of it marks, on inputs of few distinct
//! lines where the pre-pass, the heuristics and the cut-offs all matter.

use gix::diff::blob::{Algorithm, Diff, Token};

use super::{histogram, myers};

/// A small deterministic generator (no dependency for tests).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % u64::from(n)) as u32
    }
}

fn tokens(rng: &mut Lcg, len: u32, alphabet: u32) -> Vec<Token> {
    (0..len).map(|_| Token(rng.next(alphabet))).collect()
}

/// `after` as an edit of `before`: runs kept, dropped, replaced.
fn edited(rng: &mut Lcg, before: &[Token], alphabet: u32) -> Vec<Token> {
    let mut out = Vec::new();
    for t in before {
        match rng.next(10) {
            0 => {}
            1 => out.push(Token(rng.next(alphabet))),
            2 => {
                out.push(*t);
                out.push(Token(rng.next(alphabet)));
            }
            _ => out.push(*t),
        }
    }
    out
}

fn marks(diff: &Diff, before: usize, after: usize) -> (Vec<bool>, Vec<bool>) {
    (
        (0..before as u32).map(|i| diff.is_removed(i)).collect(),
        (0..after as u32).map(|i| diff.is_added(i)).collect(),
    )
}

fn is_edit_script(before: &[Token], after: &[Token], removed: &[bool], added: &[bool]) -> bool {
    let kept_b = before.iter().zip(removed).filter(|(_, r)| !**r).map(|(t, _)| t);
    let kept_a = after.iter().zip(added).filter(|(_, a)| !**a).map(|(t, _)| t);
    kept_b.eq(kept_a)
}

#[test]
fn myers_port_marks_what_gix_port_marks() {
    let mut rng = Lcg(7);
    for round in 0..400 {
        let alphabet = [3, 8, 40, 400][round % 4];
        let len = [5, 60, 400, 1500][(round / 4) % 4];
        let before = tokens(&mut rng, len, alphabet);
        let after = edited(&mut rng, &before, alphabet);
        let mut gix = Diff::default();
        gix.compute_with(Algorithm::Myers, &before, &after, alphabet);
        let mode = super::Mode {
            minimal: false,
            frequency_limit: true,
        };
        let ours = myers::diff(&before, &after, alphabet, mode);
        assert_eq!(ours, marks(&gix, before.len(), after.len()), "round {round}");
    }
}

#[test]
fn minimal_marks_an_edit_script_no_longer_than_the_default() {
    let mut rng = Lcg(11);
    for round in 0..200 {
        let before = tokens(&mut rng, 300, 6);
        let after = edited(&mut rng, &before, 6);
        for frequency_limit in [true, false] {
            let mode = super::Mode {
                minimal: true,
                frequency_limit,
            };
            let (removed, added) = myers::diff(&before, &after, 6, mode);
            assert!(is_edit_script(&before, &after, &removed, &added), "round {round}");
            let mut gix = Diff::default();
            gix.compute_with(Algorithm::Myers, &before, &after, 6);
            let ours = removed.iter().chain(&added).filter(|m| **m).count();
            let default = (gix.count_removals() + gix.count_additions()) as usize;
            assert!(ours <= default, "round {round}: {ours} > {default}");
        }
    }
}

#[test]
fn histogram_marks_an_edit_script() {
    let mut rng = Lcg(13);
    for round in 0..300 {
        let alphabet = [2, 5, 50, 100][round % 4];
        let before = tokens(&mut rng, 200 + round as u32, alphabet);
        let after = edited(&mut rng, &before, alphabet);
        let (removed, added) = histogram::diff(&before, &after, alphabet);
        assert!(is_edit_script(&before, &after, &removed, &added), "round {round}");
    }
}
