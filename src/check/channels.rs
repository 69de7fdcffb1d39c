//! Message passing's declarations: message types, the channel
//! declaration (capacity, random fill, and the delay of a program that runs
//! in ticks), and `receive` clauses, each resolved into the IR.

use super::*;

impl Checker {
    /// A message type: its name and its fields' domains.
    pub(super) fn declare_message(&mut self, m: &ast::MessageDecl) {
        if self.declare_name(&m.name, "message type") {
            self.msg_index
                .insert(m.name.name.clone(), self.messages.len());
        }
        self.scope = Some(Scope::Constant);
        let mut fields = Vec::new();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (f, d) in &m.fields {
            if let Some(prev) = seen.insert(&f.name, f.span) {
                self.err(
                    Problem::new(
                        "guarded::check::duplicate_name",
                        format!("field `{}` appears twice", f.name),
                    )
                    .label(f.span, "second one")
                    .label(prev, "first one")
                    .help("give each field of a message its own name"),
                );
            }
            let (ty, domain) = self.scalar_domain(d);
            if ty == Ty::Node {
                self.err(
                    Problem::new(
                        "guarded::check::node_field",
                        "a message field cannot be a node reference",
                    )
                    .label(f.span, "a `node` field")
                    .help("send a process number (`index`) or an `id` as an integer"),
                );
            }
            fields.push((f.name.clone(), ty, domain));
        }
        if fields.len() > ir::MAX_FIELDS {
            self.err(
                Problem::new(
                    "guarded::check::too_many_fields",
                    format!("`{}` has {} fields", m.name.name, fields.len()),
                )
                .label(m.name.span, "this message type")
                .help(format!("a message has at most {} fields", ir::MAX_FIELDS)),
            );
        }
        self.messages.push(ir::Message {
            name: m.name.name.clone(),
            fields,
        });
    }

    /// The channel declaration: capacity and random fill, and the delay
    /// range of a program that runs in ticks.
    pub(super) fn capacity(
        &mut self,
        prog: &ast::Program,
    ) -> (Option<ir::Capacity>, Option<(IExpr, IExpr, Span)>) {
        self.scope = Some(Scope::Constant);
        if let Some(second) = prog.capacity.get(1) {
            self.err(
                Problem::new(
                    "guarded::check::duplicate_capacity",
                    "more than one channel capacity",
                )
                .label(second.capacity.span(), "second `channel capacity`")
                .help("every channel has the same capacity; keep one declaration"),
            );
        }
        let range = |this: &mut Self, r: &Option<(Expr, Expr)>| {
            r.as_ref().and_then(|(lo, hi)| {
                let lo = this.int_expr(lo, Some(Ty::Int));
                let hi = this.int_expr(hi, Some(Ty::Int));
                Some((lo?, hi?))
            })
        };
        match prog.capacity.first() {
            Some(decl) => {
                let random = range(self, &decl.random);
                let delay = range(self, &decl.delay)
                    .zip(decl.delay.as_ref())
                    .map(|((lo, hi), (from, to))| (lo, hi, from.span().join(to.span())));
                let e = &decl.capacity;
                let capacity = self
                    .int_expr(e, Some(Ty::Int))
                    .map(|c| (c, random, e.span()));
                (capacity, delay)
            }
            None if !prog.messages.is_empty() => {
                let m = &prog.messages[0];
                self.err(
                    Problem::new(
                        "guarded::check::no_capacity",
                        "messages are declared but channels have no capacity",
                    )
                    .label(m.name.span, "a message type")
                    .help("declare how many messages a channel holds: `channel capacity 4`"),
                );
                (None, None)
            }
            None => (None, None),
        }
    }

    /// Binds a receive clause's sender and fields.
    pub(super) fn receive(&mut self, r: &ast::Receive) -> Option<(usize, usize, Vec<usize>)> {
        let Some(&m) = self.msg_index.get(&r.message.name) else {
            let help = match suggest(&r.message.name, sorted_names(&self.msg_index)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "declare it: `message NAME(field: DOMAIN)`".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::unknown_message",
                    format!("unknown message type `{}`", r.message.name),
                )
                .label(r.message.span, "not declared")
                .help(help),
            );
            return None;
        };
        let fields = self.messages[m].fields.clone();
        if fields.len() != r.fields.len() {
            self.err(
                Problem::new(
                    "guarded::check::arity",
                    format!(
                        "`{}` has {} field{}, {} named",
                        r.message.name,
                        fields.len(),
                        if fields.len() == 1 { "" } else { "s" },
                        r.fields.len()
                    ),
                )
                .label(r.message.span, "name each field once")
                .help(format!(
                    "write `receive {}({}) from q`",
                    r.message.name,
                    fields
                        .iter()
                        .map(|f| f.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
            // Bind the names all the same, so that their uses are not
            // reported as unknown too.
            self.bind(&r.from.name, LocalKind::Node { nbr: true });
            for (k, name) in r.fields.iter().enumerate() {
                let ty = fields.get(k).map_or(Ty::Int, |f| f.1);
                self.bind(&name.name, LocalKind::Field(ty));
            }
            return None;
        }
        let from = self.bind(&r.from.name, LocalKind::Node { nbr: true });
        let slots = r
            .fields
            .iter()
            .zip(&fields)
            .map(|(name, (_, ty, _))| self.bind(&name.name, LocalKind::Field(*ty)))
            .collect();
        Some((m, from, slots))
    }
}
