//! Organisations, depots, access keys, installation secrets.

use crate::sql::{
    params, params_from_iter, Connection, Dialect, OptionalExtension, ParamsFromIter, Row,
    Statement, ToSql,
};
use dispatch_core::model::organisation::{
    key_lookup, AccessKey, Depot, DepotScope, DepotSettings, KeyPermission, Organisation, Webhook,
};
use dispatch_core::ports::store::{NewDepot, OrganisationRepo, ReferenceRepo, StoreError};
use dispatch_core::time::Timestamp;

use super::{ts, Db, Sql};

/// The columns [`depot`] reads, in its order.
pub(super) const DEPOT_COLUMNS: &str = "id, organisation_id, name, address, lat, lng, allow_orders_without_customer, \
     starting_status, partial_orders, timezone, webhook_url, webhook_username, webhook_password, created, updated";

/// The depot in a row that starts with [`DEPOT_COLUMNS`].
pub(super) fn depot(r: &Row<'_>) -> crate::sql::Result<Depot> {
    let url: Option<String> = r.get(10)?;
    Ok(Depot {
        id: r.get(0)?,
        organisation_id: r.get(1)?,
        name: r.get(2)?,
        address: r.get(3)?,
        lat: r.get(4)?,
        lng: r.get(5)?,
        settings: DepotSettings {
            allow_orders_without_customer: r.get(6)?,
            starting_status: r.get(7)?,
            partial_orders: r.get(8)?,
            timezone: r.get(9)?,
            webhook: match url {
                Some(url) => Some(Webhook {
                    url,
                    username: r.get::<_, Option<String>>(11)?.unwrap_or_default(),
                    password: r.get::<_, Option<String>>(12)?.unwrap_or_default(),
                }),
                None => None,
            },
        },
        created: ts(r.get(13)?),
        updated: ts(r.get(14)?),
    })
}

fn organisation(r: &Row<'_>) -> crate::sql::Result<Organisation> {
    Ok(Organisation {
        id: r.get(0)?,
        name: r.get(1)?,
        created: ts(r.get(2)?),
        updated: ts(r.get(3)?),
    })
}

const KEY_COLUMNS: &str = "k.id, k.depot_id, d.organisation_id, k.name, k.permission, k.key_hash";

fn access_key(r: &Row<'_>) -> crate::sql::Result<AccessKey> {
    let permission: String = r.get(4)?;
    let hash: Vec<u8> = r.get(5)?;
    Ok(AccessKey {
        id: r.get(0)?,
        depot_id: r.get(1)?,
        organisation_id: r.get(2)?,
        name: r.get(3)?,
        permission: KeyPermission::parse(&permission).unwrap_or(KeyPermission::Read),
        key_hash: hash.try_into().unwrap_or([0; 32]),
    })
}

/// The parameters of a statement writing a depot: `before`, then the columns an insert and an
/// update write alike (`address` to `webhook_password`) and the time of the change.
fn with_settings(before: &[&dyn ToSql], d: &NewDepot, now: Timestamp) -> ParamsFromIter {
    let s = &d.settings;
    let fields: [&dyn ToSql; 11] = [
        &d.address,
        &d.location.map(|c| c.lat),
        &d.location.map(|c| c.lng),
        &s.allow_orders_without_customer,
        &s.starting_status,
        &s.partial_orders,
        &s.timezone,
        &s.webhook.as_ref().map(|w| &w.url),
        &s.webhook.as_ref().map(|w| &w.username),
        &s.webhook.as_ref().map(|w| &w.password),
        &now.millis(),
    ];
    params_from_iter(before.iter().chain(&fields))
}

impl<C: Connection> OrganisationRepo for Db<C> {
    fn find_organisation_by_name(
        &mut self,
        name: &str,
    ) -> Result<Option<Organisation>, StoreError> {
        self.0
            .query_row(
                "SELECT id, name, created, updated FROM organisations WHERE name = ?1",
                [name],
                organisation,
            )
            .optional()
            .st()
    }

    fn insert_organisation(
        &mut self,
        name: &str,
        now: Timestamp,
    ) -> Result<Organisation, StoreError> {
        let id: i64 = self.0
            .insert(
                "INSERT INTO organisations (name, created, updated) VALUES (?1, ?2, ?2) RETURNING id",
                params![name, now.millis()],
            )
            .st()?;
        Ok(Organisation {
            id,
            name: name.into(),
            created: now,
            updated: now,
        })
    }

    fn count_depots(&mut self) -> Result<u64, StoreError> {
        self.0
            .query_row("SELECT count(*) FROM depots", params![], |r| r.get(0))
            .st()
    }

    fn get_depot(&mut self, scope: DepotScope) -> Result<Option<Depot>, StoreError> {
        self.0
            .query_row(
                &format!(
                    "SELECT {DEPOT_COLUMNS} FROM depots WHERE id = ?1 AND organisation_id = ?2"
                ),
                params![scope.depot_id, scope.organisation_id],
                depot,
            )
            .optional()
            .st()
    }

    /// On PostgreSQL one statement (one round trip): the statuses aggregated as a JSON array
    /// beside the depot's row.
    fn get_depot_with_statuses(
        &mut self,
        scope: DepotScope,
    ) -> Result<Option<(Depot, Vec<String>)>, StoreError> {
        if C::DIALECT == Dialect::Sqlite {
            let Some(depot) = self.get_depot(scope)? else {
                return Ok(None);
            };
            let statuses = self.list_custom_order_statuses(scope.organisation_id)?;
            return Ok(Some((depot, statuses)));
        }
        let found = self
            .0
            .query_row(
                &format!(
                    "SELECT {DEPOT_COLUMNS}, (SELECT json_agg(c.status ORDER BY c.id) \
                     FROM custom_order_statuses c WHERE c.organisation_id = d.organisation_id) \
                     FROM depots d WHERE id = ?1 AND organisation_id = ?2"
                ),
                params![scope.depot_id, scope.organisation_id],
                |r| Ok((depot(r)?, r.get::<_, Option<String>>(15)?)),
            )
            .optional()
            .st()?;
        let Some((depot, statuses)) = found else {
            return Ok(None);
        };
        let statuses = match statuses {
            Some(json) => serde_json::from_str(&json)
                .map_err(|_| StoreError::Backend("corrupt stored order statuses".into()))?,
            None => Vec::new(),
        };
        Ok(Some((depot, statuses)))
    }

    fn find_depot_by_name(
        &mut self,
        organisation_id: i64,
        name: &str,
    ) -> Result<Option<Depot>, StoreError> {
        self.0
            .query_row(
                &format!(
                    "SELECT {DEPOT_COLUMNS} FROM depots WHERE organisation_id = ?1 AND name = ?2"
                ),
                params![organisation_id, name],
                depot,
            )
            .optional()
            .st()
    }

    fn insert_depot(
        &mut self,
        organisation_id: i64,
        d: &NewDepot,
        now: Timestamp,
    ) -> Result<Depot, StoreError> {
        let id: i64 = self.0
            .insert(
                "INSERT INTO depots (organisation_id, name, address, lat, lng, allow_orders_without_customer, \
                 starting_status, partial_orders, timezone, webhook_url, webhook_username, webhook_password, created, updated) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13) RETURNING id",
                with_settings(&[&organisation_id, &d.name], d, now),
            )
            .st()?;
        let scope = DepotScope {
            organisation_id,
            depot_id: id,
        };
        self.get_depot(scope)?
            .ok_or_else(|| StoreError::Backend("inserted depot vanished".into()))
    }

    fn update_depot(
        &mut self,
        scope: DepotScope,
        d: &NewDepot,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.0
            .execute(
                "UPDATE depots SET name = ?3, address = ?4, lat = ?5, lng = ?6, allow_orders_without_customer = ?7, \
                 starting_status = ?8, partial_orders = ?9, timezone = ?10, webhook_url = ?11, webhook_username = ?12, \
                 webhook_password = ?13, updated = ?14 WHERE id = ?1 AND organisation_id = ?2",
                with_settings(&[&scope.depot_id, &scope.organisation_id, &d.name], d, now),
            )
            .st()?;
        Ok(())
    }

    fn access_keys_by_lookup(&mut self, lookup: i64) -> Result<Vec<AccessKey>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {KEY_COLUMNS} FROM access_keys k JOIN depots d ON d.id = k.depot_id WHERE k.key_lookup = ?1"
            ))
            .st()?;
        let rows = stmt.query_map([lookup], access_key).st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn find_access_key_by_name(
        &mut self,
        scope: DepotScope,
        name: &str,
    ) -> Result<Option<AccessKey>, StoreError> {
        self.0
            .query_row(
                &format!(
                    "SELECT {KEY_COLUMNS} FROM access_keys k JOIN depots d ON d.id = k.depot_id \
                     WHERE k.depot_id = ?1 AND d.organisation_id = ?2 AND k.name = ?3"
                ),
                params![scope.depot_id, scope.organisation_id, name],
                access_key,
            )
            .optional()
            .st()
    }

    fn insert_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        permission: KeyPermission,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<AccessKey, StoreError> {
        // Never an id handed out before: idempotency records are kept per key id, so a
        // revoked key's id given to a new key would replay its responses to the new caller.
        let id: i64 = self
            .0
            .insert(
                C::DIALECT.pick(
                    "INSERT INTO access_key_ids DEFAULT VALUES RETURNING id",
                    "SELECT nextval(pg_get_serial_sequence('access_keys', 'id'))",
                ),
                params![],
            )
            .st()?;
        self.0
            .execute(
                "INSERT INTO access_keys (id, depot_id, name, permission, key_lookup, key_hash, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id, scope.depot_id, name, permission.as_str(), key_lookup(&key_hash), &key_hash[..], now.millis()],
            )
            .st()?;
        Ok(AccessKey {
            id,
            depot_id: scope.depot_id,
            organisation_id: scope.organisation_id,
            name: name.into(),
            permission,
            key_hash,
        })
    }

    fn set_access_key_permission(
        &mut self,
        scope: DepotScope,
        id: i64,
        permission: KeyPermission,
    ) -> Result<(), StoreError> {
        self.0
            .execute(
                "UPDATE access_keys SET permission = ?3 WHERE id = ?1 AND depot_id = ?2",
                params![id, scope.depot_id, permission.as_str()],
            )
            .st()?;
        Ok(())
    }

    fn installation_secret(&mut self, name: &str, fresh: [u8; 32]) -> Result<[u8; 32], StoreError> {
        self.0
            .execute(
                "INSERT INTO installation_secrets (name, value) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                params![name, &fresh[..]],
            )
            .st()?;
        let value: Vec<u8> = self
            .0
            .query_row(
                "SELECT value FROM installation_secrets WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .st()?;
        value
            .try_into()
            .map_err(|_| StoreError::Backend(format!("installation secret {name} is corrupt")))
    }

    fn list_organisations(&mut self) -> Result<Vec<Organisation>, StoreError> {
        let mut stmt = self
            .0
            .prepare("SELECT id, name, created, updated FROM organisations ORDER BY id")
            .st()?;
        let rows = stmt.query_map(params![], organisation).st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn list_depots(&mut self, organisation_id: i64) -> Result<Vec<Depot>, StoreError> {
        let mut stmt = self
            .0
            .prepare(&format!(
                "SELECT {DEPOT_COLUMNS} FROM depots WHERE organisation_id = ?1 ORDER BY id"
            ))
            .st()?;
        let rows = stmt.query_map([organisation_id], depot).st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn list_access_keys(&mut self, scope: DepotScope) -> Result<Vec<AccessKey>, StoreError> {
        let mut stmt = self
            .0
            .prepare(&format!(
                "SELECT {KEY_COLUMNS} FROM access_keys k JOIN depots d ON d.id = k.depot_id \
                 WHERE k.depot_id = ?1 AND d.organisation_id = ?2 ORDER BY k.name"
            ))
            .st()?;
        let rows = stmt
            .query_map(params![scope.depot_id, scope.organisation_id], access_key)
            .st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn revoke_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let deleted = self
            .0
            .execute(
                "DELETE FROM access_keys WHERE depot_id = ?1 AND name = ?2 \
                 AND depot_id IN (SELECT id FROM depots WHERE organisation_id = ?3)",
                params![scope.depot_id, name, scope.organisation_id],
            )
            .st()?;
        if deleted == 0 {
            return Ok(false);
        }
        self.0
            .execute(
                "INSERT INTO access_key_revocations (depot_id, name, generation, revoked) \
                 VALUES (?1, ?2, 1, ?3) ON CONFLICT (depot_id, name) DO UPDATE \
                 SET generation = access_key_revocations.generation + 1, revoked = excluded.revoked",
                params![scope.depot_id, name, now.millis()],
            )
            .st()?;
        Ok(true)
    }

    fn access_key_generation(&mut self, scope: DepotScope, name: &str) -> Result<u32, StoreError> {
        let generation: Option<u32> = self
            .0
            .query_row(
                "SELECT generation FROM access_key_revocations WHERE depot_id = ?1 AND name = ?2",
                params![scope.depot_id, name],
                |r| r.get(0),
            )
            .optional()
            .st()?;
        Ok(generation.unwrap_or(0))
    }
}
