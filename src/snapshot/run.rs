//! One capture, step by step: the walk, the hashing, the tree, the cache.

use super::*;

impl Ctx<'_, '_> {
    /// One capture. An incremental run compares the worktree with the
    /// cached `index.tracked` (`cached`, taken out of `cache`) and edits
    /// the last captured tree; otherwise `index.tracked` is rebuilt from
    /// `head` and HEAD's tree is edited.
    pub(super) fn run(
        &self,
        head: ObjectId,
        cache: Option<&Cache>,
        cached: Option<gix::index::File>,
    ) -> Result<Snapshot> {
        let incremental = cached.is_some();
        let (mut tracked, base_tree, attributes) = self.base(head, cache, cached)?;
        let read_beside = match &attributes {
            Attrs::Read(now) => {
                if self.attributes_changed(cache, now) {
                    return self.run(head, None, None);
                }
                self.auto_eol.set(incremental && now.auto_eol);
                false
            }
            Attrs::Beside { auto_eol, .. } => {
                self.auto_eol.set(*auto_eol);
                true
            }
        };

        // 1. The status walk: modified tracked files (hashed and written in
        //    the walk's threads) and the untracked, not ignored files; the
        //    attributes read beside it when the cache says how to walk.
        let dirs = self.dirs_input(head, cache.filter(|_| !incremental), &tracked);
        // The cached index is what the watcher's token goes with: what it
        // did not list is as the index says, without an lstat.
        let focus = self.focus.filter(|_| incremental);
        if let Some(f) = focus {
            mark_unlisted(&mut tracked, f, true);
        }
        sparse::mark_walkable(&mut tracked, true);
        let (found, now) = attributes.beside(|| walk::status(self, &tracked, dirs));
        sparse::mark_walkable(&mut tracked, false);
        if let Some(f) = focus {
            mark_unlisted(&mut tracked, f, false);
        }
        let now = now?;
        // Read beside the walk: the walk went by the cache's `auto_eol`,
        // which holds when the fingerprint does.
        if read_beside && self.attributes_changed(cache, &now) {
            return self.run(head, None, None);
        }
        let found = found?;
        let mut hashed = found.written.len();
        self.rec.note_written(found.written);
        let found_dirs = found.dirs;

        // 2. Tracked paths: fold the walk's findings into the cache and
        //    derive the tree edits.
        let (mut edits, rehashed) = walk::fold_tracked(self, &mut tracked, found.tracked, incremental)?;
        hashed += rehashed;
        hashed += skip_worktree::settle(self, &mut tracked, head, &mut edits)?;
        gitlinks::settle(self, &mut tracked, head, &mut edits)?;

        // 3. Untracked files: what the t3 rules leave out when the walk
        //    could not apply them, then the size cap; reuse the last
        //    capture's ids where stat agrees.
        let t = crate::trace::span("untracked files");
        let mut found_untracked = self.t3_filter(found.untracked)?;
        if self.sparse {
            found_untracked = sparse::in_patterns(self.repo, found_untracked)?;
        }
        let old_untracked = cache.map(|c| &c.untracked);
        let hash::UntrackedOutcome {
            files: untracked,
            hashed: n,
            skipped,
        } = hash::untracked(self, found_untracked, old_untracked, &tracked)?;
        hashed += n;
        tree::untracked_edits(&untracked, old_untracked, incremental, &mut edits);
        drop(t);
        let secrets = self.secrets(&untracked);

        // 4. The tree.
        let t = crate::trace::span("tree edit");
        let tree = tree::apply(self.repo, self.rec, base_tree, edits)?;
        // Readable by what reads the tree next (the summary): written as a
        // pack now, or, when small, kept in memory until the commit and the
        // note join the same pack (see `Recorder::reader`).
        self.rec.seal_for_reading()?;
        drop(t);

        self.objects_exist(head, tree)?;

        // 5. The cache, stamped with the walk's start for racy-git.
        let rebuilt = !incremental;
        let cache_write = if self.keep {
            let cache_write = self.save_cache(head, tree, now, tracked, &untracked, found_dirs);
            crate::trace::note(|| format!("hashed {hashed} files, cache rebuilt: {rebuilt}"));
            cache_write
        } else {
            CacheWrite::default()
        };
        Ok(Snapshot {
            tree,
            hashed,
            rebuilt,
            skipped,
            max_file_size: self.max_file_size,
            secrets,
            notices: self.notices.clone(),
            cache_write,
        })
    }

    /// The secret-looking paths among the `untracked` files captured
    /// (nested repositories are not files).
    fn secrets(&self, untracked: &[captured::Untracked]) -> Vec<gix::bstr::BString> {
        let t = crate::trace::span("secret patterns");
        let patterns = secrets::Secrets::of(self.repo);
        let secrets = untracked
            .iter()
            .filter(|f| f.mode != gix::index::entry::Mode::COMMIT && patterns.matches(f.path.as_ref()))
            .map(|f| f.path.clone())
            .collect();
        drop(t);
        secrets
    }

    /// Fail unless every object `tree` names beyond HEAD's (`head`), or
    /// beyond the tree a ref keeps alive when there is one (closer: the
    /// thread's last checkpoint), exists (a cached id may name one gc
    /// removed); loose ones reused are freshened.
    fn objects_exist(&self, head: ObjectId, tree: ObjectId) -> Result<()> {
        let t = crate::trace::span("objects exist");
        self.interrupt.check()?;
        let reader = self.rec.reader();
        let missing = repo::alive::missing_beyond(
            reader.as_ref().unwrap_or(self.repo),
            &self.repo.objects,
            Some(self.alive.unwrap_or(head)),
            tree,
            |id| self.rec.is_known(id),
            self.keep,
            self.interrupt,
        )?;
        if let Some(first) = missing.first() {
            return Err(Error::MissingObjects {
                first: crate::model::path::quoted(first),
                count: missing.len(),
            });
        }
        drop(t);
        Ok(())
    }

    /// Start writing the cache of the capture of `tree` (`head`: HEAD's
    /// tree): `tracked`, the `untracked` files, the walk's `dirs` and the
    /// attributes' fingerprint (`now`'s, unless a file was found in a
    /// folder it did not look at).
    fn save_cache(
        &self,
        head: ObjectId,
        tree: ObjectId,
        now: attrs::Attributes,
        tracked: gix::index::File,
        untracked: &[captured::Untracked],
        dirs: Option<untracked::NextDirs>,
    ) -> CacheWrite {
        let t = crate::trace::span("save cache");
        let dir = self.dir.to_owned();
        // The fingerprint taken before the walk, extended to the folders of
        // files found where it did not look.
        let attrs = now.extended(self.repo, self.workdir, untracked.iter().map(|f| f.path.as_ref()));
        let cache_write = CacheWrite::spawn(
            dir,
            self.walk_started,
            cache::Names { head, tree, attrs },
            tracked,
            untracked,
            dirs.map(|d| (d, self.watch.clone())),
        );
        drop(t);
        cache_write
    }

    /// The untracked-walk cache to start from: the last one as it is when
    /// HEAD did not move; when it did, with the directories of every path
    /// that became tracked or untracked marked to be read again.
    pub(super) fn dirs_input<'c>(
        &'c self,
        head: ObjectId,
        cache: Option<&Cache>,
        tracked: &gix::index::File,
    ) -> Option<walk::DirsInput<'c>> {
        if self.sparse {
            return None;
        }
        let head_hex: gix::bstr::BString = head.to_string().into();
        let old = self.dirs.and_then(|d| {
            if d.head == head_hex {
                return Some((d, untracked::Invalid::default()));
            }
            // What was tracked when it was walked: the cached index's paths,
            // if that index was built from the same HEAD.
            let c = cache.filter(|c| d.head == c.head.to_string().as_bytes())?;
            let (old_paths, new_paths) = (c.tracked.entries(), tracked.entries());
            let invalid = untracked::Invalid::tracked_paths_changed(
                old_paths.iter().map(|e| e.path(&c.tracked)),
                new_paths.iter().map(|e| e.path(tracked)),
            );
            Some((d, invalid))
        });
        let (old, invalid) = match old {
            Some((d, inv)) => (Some(d), inv),
            None => (None, untracked::Invalid::default()),
        };
        let focus = self.focus.filter(|_| old.is_some());
        Some(walk::DirsInput {
            old,
            invalid,
            head,
            focus,
        })
    }

    /// The untracked paths the walk found, less those the t3 rules exclude
    /// when the walk could not apply them itself (rules with `!` lines: see
    /// [`scope`]).
    pub(super) fn t3_filter(
        &self,
        found: Vec<(gix::bstr::BString, Option<gix::dir::entry::Kind>)>,
    ) -> Result<Vec<(gix::bstr::BString, Option<gix::dir::entry::Kind>)>> {
        let Some(excludes) = self.excludes.as_ref().filter(|e| e.has_negations()) else {
            return Ok(found);
        };
        let mut matcher = excludes.matcher(self.repo);
        let mut kept = Vec::with_capacity(found.len());
        for (path, kind) in found {
            let is_dir = kind == Some(gix::dir::entry::Kind::Repository);
            if !matcher.is_excluded(path.as_ref(), is_dir)? {
                kept.push((path, kind));
            }
        }
        Ok(kept)
    }

    /// Whether the attributes changed since `cache` was written: then ids
    /// and stat data hashed under the old ones (a changed `.gitattributes`,
    /// or one HEAD brought) are not trusted, and the run starts again with
    /// every file hashed.
    fn attributes_changed(&self, cache: Option<&Cache>, now: &attrs::Attributes) -> bool {
        let changed =
            cache.is_some_and(|c| !self.renormalize.get() && c.attrs.as_deref() != Some(now.id.as_str()));
        if changed {
            crate::trace::note(|| "the attributes changed: every file is hashed again".into());
            self.renormalize.set(true);
        }
        changed
    }

    /// The next `index.tracked`, to compare the worktree with, the tree to
    /// edit, and the attributes over its paths and the cache's untracked
    /// ones: the cached index and tree in an incremental run, else a fresh
    /// index of `head` and HEAD's tree. An incremental run whose cache
    /// says how it walks reads the attributes beside the walk.
    pub(super) fn base(
        &self,
        head: ObjectId,
        cache: Option<&Cache>,
        cached: Option<gix::index::File>,
    ) -> Result<(gix::index::File, ObjectId, Attrs)> {
        let sources = |tracked: &gix::index::State| {
            let untracked = cache
                .into_iter()
                .flat_map(|c| c.untracked.entries().iter().map(|e| e.path(&c.untracked)));
            let paths = tracked.entries().iter().map(|e| e.path(tracked));
            attrs::sources(self.repo, self.workdir, paths.chain(untracked))
        };
        let (mut tracked, base_tree, attributes) = match (cached, cache) {
            (Some(tracked), Some(c)) => {
                let sources = sources(&tracked);
                let a = match c.auto_eol {
                    Some(auto_eol) if c.attrs.is_some() && !self.renormalize.get() => {
                        Attrs::Beside { sources, auto_eol }
                    }
                    _ => Attrs::Read(sources.read()),
                };
                (tracked, c.tree, a)
            }
            _ => {
                let mut a = None;
                let fresh = rebuild::tracked(self.repo, head, cache, !self.renormalize.get(), |fresh| {
                    let now = sources(fresh).read();
                    let quiet = !now.converts;
                    a = Some(now);
                    quiet
                })?;
                let a = match a {
                    Some(a) => a,
                    None => sources(&fresh).read(),
                };
                (fresh, head, Attrs::Read(a))
            }
        };
        tracked.set_path(cache::next_tracked_path(self.dir, cache));
        Ok((tracked, base_tree, attributes))
    }
}

/// The attributes a run walks under.
pub(super) enum Attrs {
    /// Read before the walk.
    Read(attrs::Attributes),
    /// To be read beside the walk, which goes by the cache's `auto_eol`
    /// meanwhile (see [`attrs::Stamp`]).
    Beside { sources: attrs::Sources, auto_eol: bool },
}

impl Attrs {
    /// What `walk` gives, and the attributes: read already, or read on
    /// another thread meanwhile.
    fn beside<T>(self, walk: impl FnOnce() -> T) -> (T, Result<attrs::Attributes>) {
        match self {
            Attrs::Read(now) => (walk(), Ok(now)),
            Attrs::Beside { sources, .. } => std::thread::scope(|s| {
                let reading = s.spawn(move || sources.read());
                let walked = walk();
                let now = reading
                    .join()
                    .map_err(|_| Error::Internal("the attributes thread panicked".into()));
                (walked, now)
            }),
        }
    }
}
