//! Reads: the processes an expression denotes (self, ring neighbours,
//! bound variables, node references, checked for locality when they
//! happen) and the slots of their rows it reads.

use super::*;

impl Compiler<'_> {
    /// The element slot of an array read or write: constant indices are
    /// checked now, others when evaluated.
    pub(super) fn element(&self, var: usize, index: &IExpr, span: Span) -> Result<usize, IFn> {
        let len = self.lens[var];
        let base = self.offsets[var];
        if let Some(i) = const_eval(index, &self.params, self.n) {
            if i < 0 || i as usize >= len {
                let v = &self.prog.vars[var];
                self.problems.borrow_mut().push(
                    Problem::new(
                        "guarded::instance::index_out_of_range",
                        format!(
                            "index {i} is outside `{}`, which has {len} elements",
                            v.name
                        ),
                    )
                    .label(span, format!("valid indices are 0..{}", len - 1))
                    .help("indices start at 0; check the parameters"),
                );
                return Ok(base);
            }
            return Ok(base + i as usize);
        }
        let f = self.iexpr(index);
        let name = self.prog.vars[var].name.clone();
        Err(Box::new(move |e| {
            let i = f(e)?;
            if i < 0 || i as usize >= len {
                return fault(
                    span,
                    format!("index {i} is outside `{name}`, which has {len} elements"),
                    "indices run from 0 to the length minus one",
                );
            }
            Ok((base + i as usize) as i64)
        }))
    }

    /// A read of the slot `slot` computes (an array element with a
    /// computed index) at the process `p` denotes.
    pub(super) fn read_at(&self, p: &Proc, slot: IFn) -> IFn {
        let stride = self.stride;
        let proc = self.proc(p);
        if self.in_stmt {
            Box::new(move |e| {
                let q = proc(e)?;
                let s = slot(e)? as usize;
                Ok(if q == e.me {
                    e.scratch[s].get()
                } else {
                    e.state[q * stride + s]
                })
            })
        } else {
            Box::new(move |e| {
                let q = proc(e)?;
                Ok(e.state[q * stride + slot(e)? as usize])
            })
        }
    }

    /// A read of an array element.
    pub(super) fn elem(&self, p: &Proc, var: usize, index: &IExpr, span: Span) -> IFn {
        if self.per_nbr[var] {
            return self.nbr_elem(p, var, index, span);
        }
        match self.element(var, index, span) {
            Ok(slot) => self.read(p, slot),
            Err(slot) => self.read_at(p, slot),
        }
    }

    /// A read of the value a process `p` keeps for its neighbour `index`.
    pub(super) fn nbr_elem(&self, p: &Proc, var: usize, index: &IExpr, span: Span) -> IFn {
        let owner = self.proc(p);
        let q = self.iexpr(index);
        let (base, stride, in_stmt) = (self.offsets[var], self.stride, self.in_stmt);
        let name = self.prog.vars[var].name.clone();
        Box::new(move |e| {
            let o = owner(e)?;
            let q = q(e)?;
            let Some(k) = usize::try_from(q).ok().and_then(|q| e.topo.nbr_pos(o, q)) else {
                return fault(
                    span,
                    format!("process {q} is not a neighbour of process {o}, so `{name}` has no value for it"),
                    "index a per-neighbour variable with one of the owner's neighbours",
                );
            };
            Ok(if in_stmt && o == e.me {
                e.scratch[base + k].get()
            } else {
                e.state[o * stride + base + k]
            })
        })
    }

    /// The position of neighbour `q` of the running process, or a fault.
    pub(super) fn my_nbr_slot(&self, var: usize, index: &IExpr, span: Span) -> IFn {
        let q = self.iexpr(index);
        let base = self.offsets[var];
        let name = self.prog.vars[var].name.clone();
        Box::new(move |e| {
            let q = q(e)?;
            match usize::try_from(q).ok().and_then(|q| e.topo.nbr_pos(e.me, q)) {
                Some(k) => Ok((base + k) as i64),
                None => fault(
                    span,
                    format!("process {q} is not a neighbour of process {}, so `{name}` has no value for it", e.me),
                    "index a per-neighbour variable with one of the process's neighbours",
                ),
            }
        })
    }

    pub(super) fn read(&self, p: &Proc, slot: usize) -> IFn {
        let stride = self.stride;
        match p {
            // The process's own row, and on a ring (neighbours computed, not
            // looked up) the left neighbour's: the fused reads' definitions,
            // which in a statement read the row being written.
            Proc::Me if self.in_stmt => fused_read(Plain::Scratch(slot), stride),
            Proc::Me => fused_read(Plain::Own(slot), stride),
            Proc::Left(_) if self.regular_ring => {
                let n = self.n.n as usize;
                let read = if self.in_stmt {
                    Plain::LeftInStatement(slot, n)
                } else {
                    Plain::Left(slot, n)
                };
                fused_read(read, stride)
            }
            Proc::Left(span) if !self.in_stmt => {
                let span = *span;
                Box::new(move |e| {
                    let q = e.topo.left(e.me);
                    if q == NONE {
                        return no_neighbour(span, "left", e.me);
                    }
                    Ok(e.state[q as usize * stride + slot])
                })
            }
            // A quantifier's process (`Q.x`) and the one an own variable
            // names (`parent.x`), outside statements: the fused reads, one
            // closure each, not two.
            Proc::Local(local) if !self.in_stmt => fused_read(Plain::Local(slot, *local), stride),
            // In a statement, the mover's own row is the one being written.
            Proc::Local(local) => {
                let local = *local;
                Box::new(move |e| {
                    let q = e.locals[local].get() as usize;
                    Ok(if q == e.me {
                        e.scratch[slot].get()
                    } else {
                        e.state[q * stride + slot]
                    })
                })
            }
            Proc::Through(var) if !self.in_stmt => {
                fused_read(Plain::Through(self.offsets[*var], slot), stride)
            }
            // `q.parent.x`, outside statements: one closure, not three.
            Proc::Via(node, span) if !self.in_stmt && self.plain(node).is_some() => {
                let node = self.plain(node).expect("plain, as matched");
                fused_via(node, slot, *span, stride)
            }
            _ => {
                let proc = self.proc(p);
                if self.in_stmt {
                    Box::new(move |e| {
                        let q = proc(e)?;
                        Ok(if q == e.me {
                            e.scratch[slot].get()
                        } else {
                            e.state[q * stride + slot]
                        })
                    })
                } else {
                    Box::new(move |e| Ok(e.state[proc(e)? * stride + slot]))
                }
            }
        }
    }

    pub(super) fn proc(&self, p: &Proc) -> PFn {
        match p {
            Proc::Me => Box::new(|e| Ok(e.me)),
            // On a ring neighbours are computed, not looked up.
            Proc::Left(_) if self.regular_ring => {
                Box::new(|e| Ok(if e.me == 0 { e.topo.n() - 1 } else { e.me - 1 }))
            }
            Proc::Right(span) if self.regular_ring => {
                let span = *span;
                Box::new(move |e| {
                    if e.topo.has_right {
                        Ok(if e.me + 1 == e.topo.n() { 0 } else { e.me + 1 })
                    } else {
                        no_neighbour(span, "right", e.me)
                    }
                })
            }
            Proc::Left(span) | Proc::Right(span) => {
                let span = *span;
                let left = matches!(p, Proc::Left(_));
                Box::new(move |e| {
                    let q = if left {
                        e.topo.left(e.me)
                    } else {
                        e.topo.right(e.me)
                    };
                    if q == NONE {
                        return no_neighbour(span, if left { "left" } else { "right" }, e.me);
                    }
                    Ok(q as usize)
                })
            }
            Proc::Local(slot) => {
                let slot = *slot;
                Box::new(move |e| Ok(e.locals[slot].get() as usize))
            }
            Proc::Through(var) => {
                let own = self.read(&Proc::Me, self.offsets[*var]);
                Box::new(move |e| Ok(own(e)? as usize))
            }
            Proc::At(expr, span) => {
                let (f, span) = (self.iexpr(expr), *span);
                Box::new(move |e| {
                    let q = f(e)?;
                    if q < 0 || q as usize >= e.topo.n() {
                        return fault(
                            span,
                            format!("{q} is not a process"),
                            "node values are process indices",
                        );
                    }
                    Ok(q as usize)
                })
            }
            Proc::TreeParent(_) => Box::new(|e| {
                let p = e.topo.parent[e.me];
                Ok(if p == NONE { e.me } else { p as usize })
            }),
            Proc::Via(expr, span) => {
                let f = self.iexpr(expr);
                let span = *span;
                Box::new(move |e| {
                    let q = f(e)?;
                    if q < 0 || q as usize >= e.topo.n() || !e.topo.is_self_or_nbr(e.me, q as usize)
                    {
                        return not_a_neighbour(span, e.me, q);
                    }
                    Ok(q as usize)
                })
            }
        }
    }
}
