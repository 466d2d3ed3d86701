//! `mark_color_as_moved` and `dim_moved_lines`: blocks of moved lines
//! found over the stream, their colours alternated and dimmed.

use super::detect::{Entry, Heads};
use super::{ALT, BLANK, DIM, MIN_ALNUM, MOVED, Mode, Settings, Sym};

/// A potentially moved block: the line on the other side it has reached,
/// and its indentation change.
#[derive(Debug, Clone, Copy)]
struct Block {
    at: usize,
    wsd: i64,
}

/// The state of `mark_color_as_moved`.
pub(super) struct Marker<'a> {
    pub(super) stream: &'a [Sym<'a>],
    pub(super) settings: Settings,
    pub(super) flags: Vec<u8>,
    pub(super) entries: &'a [Entry],
}

impl<'a> Marker<'a> {
    fn entry(&self, e: usize) -> Option<&'a Entry> {
        self.entries.get(e)
    }

    fn set(&mut self, at: usize, bits: u8) {
        if let Some(f) = self.flags.get_mut(at) {
            *f |= bits;
        }
    }

    /// `adjust_last_block`: whether the `len` lines before `n` have
    /// enough alphanumeric characters; if not they lose their colour.
    fn adjust_last_block(&mut self, n: usize, len: usize) -> bool {
        if self.settings.mode == Mode::Plain {
            return len > 0;
        }
        let mut alnum = 0;
        for i in n.saturating_sub(len)..n {
            let text = match self.stream.get(i) {
                Some(Sym::Minus(t) | Sym::Plus(t)) => *t,
                _ => &[],
            };
            // git counts up to a NUL (the line is a C string).
            for &b in text.iter().take_while(|&&b| b != 0) {
                if b.is_ascii_alphanumeric() {
                    alnum += 1;
                    if alnum >= MIN_ALNUM {
                        return true;
                    }
                }
            }
        }
        for i in n.saturating_sub(len)..n {
            if let Some(f) = self.flags.get_mut(i) {
                *f &= !(MOVED | ALT);
            }
        }
        false
    }

    /// `pmb_advance_or_null`: the blocks that go on with line `l`.
    fn advance(&self, l: &Entry, blocks: &mut Vec<Block>) {
        blocks.retain_mut(|b| {
            let Some(cur) = self.entry(b.at).and_then(|p| p.next_line) else {
                return false;
            };
            let Some(c) = self.entry(cur) else {
                return false;
            };
            let matched = if self.settings.indentation {
                c.id == l.id
                    && (c.width == BLANK || {
                        let delta = l.width.wrapping_sub(c.width);
                        if b.wsd == BLANK {
                            b.wsd = delta;
                        }
                        delta == b.wsd
                    })
            } else {
                c.id == l.id
            };
            b.at = cur;
            matched
        });
    }

    pub(super) fn mark(&mut self, by_symbol: &[Option<usize>], heads: &Heads) {
        let (mut blocks, mut flipped, mut block_len) = (Vec::<Block>::new(), false, 0usize);
        // The kind of the lines of the current block (None: no block).
        let mut moved_kind: Option<bool> = None;
        let mut n = 0;
        while n < self.stream.len() {
            let l = by_symbol.get(n).copied().flatten().and_then(|e| self.entry(e));
            // An added line looks for removed ones, and the other way round.
            let mut first = l.and_then(|l| heads.get(l.id).and_then(|h| h[usize::from(!l.plus)]));
            if l.is_none() {
                flipped = false;
            }
            if !blocks.is_empty() && (first.is_none() || l.map(|l| l.plus) != moved_kind) {
                if !self.adjust_last_block(n, block_len) && block_len > 1 {
                    first = None;
                    n -= block_len;
                }
                blocks.clear();
                block_len = 0;
                flipped = false;
            }
            let (Some(first), Some(l)) = (first, l) else {
                moved_kind = None;
                n += 1;
                continue;
            };
            let at = l.at;
            if self.settings.mode == Mode::Plain {
                self.set(at, MOVED);
                n += 1;
                continue;
            }
            self.advance(l, &mut blocks);
            if blocks.is_empty() {
                let contiguous = self.adjust_last_block(n, block_len);
                if !contiguous && block_len > 1 {
                    n -= block_len;
                } else {
                    let mut m = Some(first);
                    while let Some(idx) = m {
                        let Some(e) = self.entry(idx) else { break };
                        let wsd = if self.settings.indentation {
                            if l.width == BLANK && e.width == BLANK {
                                BLANK
                            } else {
                                l.width.wrapping_sub(e.width)
                            }
                        } else {
                            0
                        };
                        blocks.push(Block { at: idx, wsd });
                        m = e.next_match;
                    }
                }
                flipped = contiguous && !blocks.is_empty() && moved_kind == Some(l.plus) && !flipped;
                moved_kind = (!blocks.is_empty()).then_some(l.plus);
                block_len = 0;
            }
            if !blocks.is_empty() {
                block_len += 1;
                self.set(at, MOVED);
                if flipped && self.settings.mode != Mode::Blocks {
                    self.set(at, ALT);
                }
            }
            n += 1;
        }
        self.adjust_last_block(n, block_len);
    }
}

/// `dim_moved_lines`: a moved line inside its block (its neighbours moved
/// alike), or at a boundary that is not between two blocks, is dimmed.
pub(super) fn dim(stream: &[Sym<'_>], flags: &mut [u8]) {
    let zebra = |f: u8| f & (MOVED | ALT);
    let signed = |i: usize| matches!(stream.get(i), Some(Sym::Minus(_) | Sym::Plus(_)));
    for n in 0..stream.len() {
        let f = flags[n];
        if !signed(n) || f & MOVED == 0 {
            continue;
        }
        let prev = n.checked_sub(1).filter(|&p| signed(p)).map(|p| flags[p]);
        let next = Some(n + 1).filter(|&x| signed(x)).map(|x| flags[x]);
        let inside = prev.is_some_and(|p| zebra(p) == zebra(f)) && next.is_some_and(|x| zebra(x) == zebra(f));
        let bound = |o: Option<u8>| o.is_some_and(|o| o & MOVED != 0 && o & ALT != f & ALT);
        if inside || !(bound(prev) || bound(next)) {
            flags[n] |= DIM;
        }
    }
}
