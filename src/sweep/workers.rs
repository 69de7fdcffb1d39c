//! The sweep's workers: points run on a thread pool, each worker starting
//! its simulation again where it can, rows handed back in the points' order.

use super::{Point, Row, Spare, Sweep};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How long a worker keeps the rows of its finished runs before handing
/// them over (a row is handed over at once when the one before was handed
/// over longer ago).
const HAND_OVER_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

impl Sweep {
    /// Runs `points` on the pool's threads, each taking the next point not
    /// yet taken, and hands each row to `each` (on the calling thread) in
    /// the points' order once the rows before it are in (a worker hands its
    /// rows over in batches, a row as soon as it finishes where the last
    /// batch went 20 ms ago, else with the next). Once
    /// `interrupted` is set no run starts, runs under way stop, and the rows
    /// that finished are handed over in order around the gaps. `idle` is
    /// called whenever the rows in are handed over and the next are not in
    /// yet (where a writer flushes). Returns whether `each` or `idle` ever
    /// failed.
    pub fn run_points(
        &self,
        pool: &rayon::ThreadPool,
        points: &[&Point],
        interrupted: &AtomicBool,
        mut each: impl FnMut(Row) -> bool,
        mut idle: impl FnMut() -> bool,
    ) -> bool {
        let next = AtomicUsize::new(0);
        let (send, receive) = std::sync::mpsc::channel::<Vec<(usize, Row)>>();
        let workers = pool.current_num_threads();
        let mut failed = false;
        std::thread::scope(|scope| {
            scope.spawn(|| {
                pool.scope(|s| {
                    for _ in 0..workers {
                        let send = send.clone();
                        let next = &next;
                        s.spawn(move |_| {
                            let mut spare = Spare::default();
                            // Rows go over in batches: a message a row cost
                            // more than a short run's own set-up.
                            let mut batch = Vec::new();
                            let mut sent = std::time::Instant::now();
                            loop {
                                let k = next.fetch_add(1, Ordering::Relaxed);
                                if k >= points.len() || interrupted.load(Ordering::Relaxed) {
                                    break;
                                }
                                if let Some(row) =
                                    self.run_reusing(points[k], interrupted, &mut spare)
                                {
                                    batch.push((k, row));
                                    if sent.elapsed() >= HAND_OVER_EVERY {
                                        let _ = send.send(std::mem::take(&mut batch));
                                        sent = std::time::Instant::now();
                                    }
                                }
                            }
                            if !batch.is_empty() {
                                let _ = send.send(batch);
                            }
                        });
                    }
                });
                drop(send);
            });
            // Rows that finished before an earlier one, waiting for it.
            let mut waiting: BTreeMap<usize, Row> = BTreeMap::new();
            let mut due = 0;
            loop {
                let batch = match receive.try_recv() {
                    Ok(batch) => batch,
                    Err(std::sync::mpsc::TryRecvError::Empty) => {
                        failed |= !idle();
                        match receive.recv() {
                            Ok(batch) => batch,
                            Err(_) => break,
                        }
                    }
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => break,
                };
                waiting.extend(batch);
                while let Some(row) = waiting.remove(&due) {
                    failed |= !each(row);
                    due += 1;
                }
            }
            // Interrupted: the runs that finished, in order, around the gaps.
            for row in waiting.into_values() {
                failed |= !each(row);
            }
        });
        failed
    }
}
