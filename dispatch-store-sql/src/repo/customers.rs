//! Customers: one row each, value sets as JSON (see the 0002 migration).

use crate::sql::{
    params, params_from_iter, Connection, OptionalExtension, ParamsFromIter, Row, Statement, ToSql,
};
use dispatch_core::model::customer::Customer;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::paging::{Cursor, Page, PageRequest};
use dispatch_core::ports::store::{CustomerRepo, StoreError};

use super::order_codec as codec;
use super::{ts, Db, Sql};

const COLUMNS: &str =
    "id, account, name, address, postcode, phone, email, lat, lng, duration, notes, \
     capacities, skills, tags, time_windows, custom_fields, created, updated";

/// A customer row; the JSON sets are decoded by [`decode_sets`] when `with_sets`.
struct Row18 {
    customer: Customer,
    sets: [String; 5],
}

fn row(r: &Row<'_>) -> crate::sql::Result<Row18> {
    Ok(Row18 {
        customer: Customer {
            id: r.get(0)?,
            account: r.get(1)?,
            name: r.get(2)?,
            address: r.get(3)?,
            postcode: r.get(4)?,
            phone: r.get(5)?,
            email: r.get(6)?,
            lat: r.get(7)?,
            lng: r.get(8)?,
            duration: r.get(9)?,
            notes: r.get(10)?,
            capacities: Vec::new(),
            skills: Vec::new(),
            tags: Vec::new(),
            time_windows: Vec::new(),
            custom_fields: Vec::new(),
            created: ts(r.get(16)?),
            updated: ts(r.get(17)?),
        },
        sets: [r.get(11)?, r.get(12)?, r.get(13)?, r.get(14)?, r.get(15)?],
    })
}

fn decode_sets(r: Row18) -> Result<Customer, StoreError> {
    let [caps, skills, tags, windows, fields] = r.sets;
    Ok(Customer {
        capacities: codec::read_capacities(&caps)?,
        skills: codec::read_names(&skills)?,
        tags: codec::read_names(&tags)?,
        time_windows: codec::read_customer_windows(&windows)?,
        custom_fields: codec::read_custom_fields(&fields)?,
        ..r.customer
    })
}

/// The parameters of a statement writing a customer: `before`, the columns an insert and an
/// update write alike (`account` to `custom_fields`), then `after`.
fn with_fields(before: &[&dyn ToSql], c: &Customer, after: &[&dyn ToSql]) -> ParamsFromIter {
    let fields: [&dyn ToSql; 15] = [
        &c.account,
        &c.name,
        &c.address,
        &c.postcode,
        &c.phone,
        &c.email,
        &c.lat,
        &c.lng,
        &c.duration,
        &c.notes,
        &codec::capacities(&c.capacities),
        &codec::names(&c.skills),
        &codec::names(&c.tags),
        &codec::customer_windows(&c.time_windows),
        &codec::custom_fields(&c.custom_fields),
    ];
    params_from_iter(before.iter().chain(&fields).chain(after))
}

impl<C: Connection> Db<C> {
    fn one_customer(
        &self,
        clause: &str,
        scope: DepotScope,
        key: &dyn crate::sql::ToSql,
    ) -> Result<Option<Customer>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM customers WHERE depot_id = ?1 AND {clause}"
            ))
            .st()?;
        let found = stmt
            .query_row(params![scope.depot_id, key], row)
            .optional()
            .st()?;
        found.map(decode_sets).transpose()
    }
}

impl<C: Connection> CustomerRepo for Db<C> {
    fn count_customers(&mut self, scope: DepotScope) -> Result<u64, StoreError> {
        self.0
            .prepare_cached("SELECT count(*) FROM customers WHERE depot_id = ?1")
            .st()?
            .query_row([scope.depot_id], |r| r.get(0))
            .st()
    }

    fn find_customer_by_account(
        &mut self,
        scope: DepotScope,
        account: &str,
    ) -> Result<Option<Customer>, StoreError> {
        self.one_customer("account = ?2", scope, &account)
    }

    fn get_customer(&mut self, scope: DepotScope, id: i64) -> Result<Option<Customer>, StoreError> {
        self.one_customer("id = ?2", scope, &id)
    }

    fn insert_customer(&mut self, scope: DepotScope, c: &Customer) -> Result<i64, StoreError> {
        let id: i64 = self.0
            .prepare_cached(
                "INSERT INTO customers (depot_id, account, name, address, postcode, phone, email, lat, lng, \
                 duration, notes, capacities, skills, tags, time_windows, custom_fields, created, updated) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18) RETURNING id",
            )
            .st()?
            .query_row(
                with_fields(&[&scope.depot_id], c, &[&c.created.millis(), &c.updated.millis()]),
                |r| r.get(0),
            )
            .st()?;
        Ok(id)
    }

    fn update_customer(&mut self, scope: DepotScope, c: &Customer) -> Result<(), StoreError> {
        let changed = self
            .0
            .prepare_cached(
                "UPDATE customers SET account = ?3, name = ?4, address = ?5, postcode = ?6, phone = ?7, \
                 email = ?8, lat = ?9, lng = ?10, duration = ?11, notes = ?12, capacities = ?13, skills = ?14, \
                 tags = ?15, time_windows = ?16, custom_fields = ?17, updated = ?18 \
                 WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?
            .execute(with_fields(
                &[&scope.depot_id, &c.id],
                c,
                &[&c.updated.millis()],
            ))
            .st()?;
        if changed == 1 {
            Ok(())
        } else {
            Err(StoreError::Backend(format!(
                "customer {} is not in the depot",
                c.id
            )))
        }
    }

    fn list_customers(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<Customer>, StoreError> {
        let mut conditions = vec!["depot_id = ?"];
        let mut values: Vec<Box<dyn crate::sql::ToSql>> = vec![Box::new(scope.depot_id)];
        super::order_rows::keyset(page, "", &mut conditions, &mut values);
        values.push(Box::new(page.limit as i64 + 1));
        let sql = format!(
            "SELECT {COLUMNS} FROM customers WHERE {} ORDER BY updated DESC, id DESC LIMIT ?",
            conditions.join(" AND ")
        );
        let mut stmt = self.0.prepare_cached(&sql).st()?;
        let mut items: Vec<Customer> = stmt
            .query_map(crate::sql::params_from_iter(values.iter()), row)
            .st()?
            .map(|r| r.map(|r| r.customer))
            .collect::<Result<_, _>>()
            .st()?;
        let next = if items.len() > page.limit {
            items.truncate(page.limit);
            items.last().map(|c| Cursor {
                updated: c.updated,
                id: c.id,
            })
        } else {
            None
        };
        Ok(Page { items, next })
    }
}
