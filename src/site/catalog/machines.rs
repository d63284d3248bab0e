//! The machine of a record, its title, cell and link, and a failure's server log.

use crate::data::{self};
use crate::project::Machine;

use super::super::routes;
use super::super::views::{Cell, Link};
use super::records::Catalog;

impl<'a> Catalog<'a> {
    /// The link to a failure's server log, when the project has it.
    pub fn log_link(&self, failure: &data::Failure) -> Option<Link> {
        let log = failure.log.as_deref()?;
        self.logs.contains(log).then(|| Link {
            text: "The server's log (gzip)".into(),
            href: self.urls.page(&super::super::downloads::log_path(log)),
            note: None,
            warning: None,
        })
    }

    /// The machine that measured record `index` of `R`'s array, in a report that declares
    /// machines.
    pub fn machine_of<R: data::Record>(&self, index: usize) -> Option<&'a Machine> {
        self.machines
            .declared()
            .then(|| &self.machines.machines[self.machines.machine_of::<R>(index)])
    }

    /// What pages call a machine: its configured title, else its GPU, else its slug.
    pub fn machine_title(&self, machine: &Machine) -> String {
        machine
            .title
            .clone()
            .or_else(|| self.machines.document(machine).hardware.gpu.clone())
            .unwrap_or_else(|| machine.slug.clone())
    }

    /// A table cell naming a machine, linked to its page.
    pub fn machine_cell(&self, machine: &Machine) -> Cell {
        let link = self.machine_link(machine);
        Cell::link(link.text, link.href)
    }

    /// The link to a machine's page.
    pub fn machine_link(&self, machine: &Machine) -> Link {
        Link {
            text: self.machine_title(machine),
            href: self.urls.page(&routes::MACHINE.path(&machine.slug)),
            note: None,
            warning: None,
        }
    }
}
