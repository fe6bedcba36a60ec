//! Reference data: capacity types, custom fields, tags, skills, zones, third parties, custom
//! order statuses, notification templates, the gazetteer and the outside geocoder's remembered
//! answers.

use crate::sql::{params, Connection, OptionalExtension, Params, Row, Statement};
use dispatch_core::model::location::Coordinates;
use dispatch_core::model::notification::{Channel, NotificationTemplate};
use dispatch_core::model::order_fields::{Catalog, NamedRef};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::reference::{CapacityType, CustomField, Skill, Tag, ThirdParty};
use dispatch_core::model::zone::{Polygon, Zone, ZoneGroup};
use dispatch_core::ports::geocoder::{CachedAnswer, GazetteerEntry};
use dispatch_core::ports::store::{ReferenceRepo, StoreError};
use dispatch_core::time::Timestamp;

use super::{ts, Db, Sql};

impl<C: Connection> Db<C> {
    fn all<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnMut(&Row<'_>) -> crate::sql::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        let mut stmt = self.0.prepare_cached(sql).st()?;
        let rows = stmt.query_map(params, map).st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn one<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnMut(&Row<'_>) -> crate::sql::Result<T>,
    ) -> Result<T, StoreError> {
        self.0.query_row(sql, params, map).st()
    }
}

fn capacity_type(r: &Row<'_>) -> crate::sql::Result<CapacityType> {
    Ok(CapacityType {
        id: r.get(0)?,
        name: r.get(1)?,
        default: r.get(2)?,
        created: ts(r.get(3)?),
        updated: ts(r.get(4)?),
    })
}

fn custom_field(r: &Row<'_>) -> crate::sql::Result<CustomField> {
    Ok(CustomField {
        id: r.get(0)?,
        name: r.get(1)?,
        created: ts(r.get(2)?),
        updated: ts(r.get(3)?),
    })
}

fn zone_group(r: &Row<'_>) -> crate::sql::Result<ZoneGroup> {
    Ok(ZoneGroup {
        id: r.get(0)?,
        name: r.get(1)?,
        created: ts(r.get(2)?),
        updated: ts(r.get(3)?),
    })
}

fn zone(r: &Row<'_>) -> crate::sql::Result<Zone> {
    let text: String = r.get(3)?;
    let pairs: Vec<[f64; 2]> = serde_json::from_str(&text).map_err(|e| {
        crate::sql::Error::FromSqlConversionFailure(3, crate::sql::types::Type::Text, Box::new(e))
    })?;
    Ok(Zone {
        id: r.get(0)?,
        zone_group_id: r.get(1)?,
        name: r.get(2)?,
        polygon: Polygon(
            pairs
                .into_iter()
                .map(|[lat, lng]| Coordinates { lat, lng })
                .collect(),
        ),
    })
}

fn template(r: &Row<'_>) -> crate::sql::Result<NotificationTemplate> {
    let channel: String = r.get(1)?;
    Ok(NotificationTemplate {
        id: r.get(0)?,
        channel: Channel::parse(&channel).unwrap_or(Channel::Sms),
        name: r.get(2)?,
        body: r.get(3)?,
    })
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

impl<C: Connection> ReferenceRepo for Db<C> {
    fn list_capacity_types(&mut self, scope: DepotScope) -> Result<Vec<CapacityType>, StoreError> {
        self.all(
            "SELECT id, name, default_value, created, updated FROM capacity_types WHERE depot_id = ?1 ORDER BY id",
            [scope.depot_id],
            capacity_type,
        )
    }

    fn upsert_capacity_type(
        &mut self,
        scope: DepotScope,
        name: &str,
        default: &str,
        now: Timestamp,
    ) -> Result<CapacityType, StoreError> {
        self.0
            .execute(
                "INSERT INTO capacity_types (depot_id, name, default_value, created, updated) VALUES (?1, ?2, ?3, ?4, ?4) \
                 ON CONFLICT (depot_id, name) DO UPDATE SET default_value = excluded.default_value, updated = excluded.updated \
                 WHERE capacity_types.default_value IS DISTINCT FROM excluded.default_value",
                params![scope.depot_id, name, default, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, name, default_value, created, updated FROM capacity_types WHERE depot_id = ?1 AND name = ?2",
            params![scope.depot_id, name],
            capacity_type,
        )
    }

    fn list_custom_fields(&mut self, scope: DepotScope) -> Result<Vec<CustomField>, StoreError> {
        self.all(
            "SELECT id, name, created, updated FROM custom_fields WHERE depot_id = ?1 ORDER BY id",
            [scope.depot_id],
            custom_field,
        )
    }

    fn upsert_custom_field(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<CustomField, StoreError> {
        self.0
            .execute(
                C::DIALECT.pick(
                    "INSERT OR IGNORE INTO custom_fields (depot_id, name, created, updated) VALUES (?1, ?2, ?3, ?3)",
                    "INSERT INTO custom_fields (depot_id, name, created, updated) SELECT ?1::bigint, ?2::text, ?3::bigint, ?3::bigint \
                 WHERE NOT EXISTS (SELECT 1 FROM custom_fields WHERE depot_id = ?1 AND name = ?2)",
                ),
                params![scope.depot_id, name, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, name, created, updated FROM custom_fields WHERE depot_id = ?1 AND name = ?2",
            params![scope.depot_id, name],
            custom_field,
        )
    }

    fn list_tags(&mut self, scope: DepotScope) -> Result<Vec<Tag>, StoreError> {
        self.all(
            "SELECT id, name FROM tags WHERE depot_id = ?1 ORDER BY id",
            [scope.depot_id],
            |r| {
                Ok(Tag {
                    id: r.get(0)?,
                    name: r.get(1)?,
                })
            },
        )
    }

    fn upsert_tag(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<Tag, StoreError> {
        self.0
            .execute(
                C::DIALECT.pick(
                    "INSERT OR IGNORE INTO tags (depot_id, name, created) VALUES (?1, ?2, ?3)",
                    "INSERT INTO tags (depot_id, name, created) SELECT ?1::bigint, ?2::text, ?3::bigint \
                 WHERE NOT EXISTS (SELECT 1 FROM tags WHERE depot_id = ?1 AND name = ?2)",
                ),
                params![scope.depot_id, name, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, name FROM tags WHERE depot_id = ?1 AND name = ?2",
            params![scope.depot_id, name],
            |r| {
                Ok(Tag {
                    id: r.get(0)?,
                    name: r.get(1)?,
                })
            },
        )
    }

    /// One statement for the four lists (one round trip on PostgreSQL, where the default's
    /// four statements are four).
    fn reference_catalog(&mut self, scope: DepotScope) -> Result<Catalog, StoreError> {
        let rows: Vec<(i64, NamedRef)> = self.all(
            "SELECT 0, id, name FROM capacity_types WHERE depot_id = ?1 \
             UNION ALL SELECT 1, id, name FROM skills WHERE depot_id = ?1 \
             UNION ALL SELECT 2, id, name FROM tags WHERE depot_id = ?1 \
             UNION ALL SELECT 3, id, name FROM custom_fields WHERE depot_id = ?1 \
             ORDER BY 1, 2",
            [scope.depot_id],
            |r| {
                Ok((
                    r.get(0)?,
                    NamedRef {
                        id: r.get(1)?,
                        name: r.get(2)?,
                    },
                ))
            },
        )?;
        let mut catalog = Catalog::default();
        for (list, named) in rows {
            match list {
                0 => catalog.capacity_types.push(named),
                1 => catalog.skills.push(named),
                2 => catalog.tags.push(named),
                _ => catalog.custom_fields.push(named),
            }
        }
        Ok(catalog)
    }

    fn list_skills(&mut self, scope: DepotScope) -> Result<Vec<Skill>, StoreError> {
        self.all(
            "SELECT id, name FROM skills WHERE depot_id = ?1 ORDER BY id",
            [scope.depot_id],
            |r| {
                Ok(Skill {
                    id: r.get(0)?,
                    name: r.get(1)?,
                })
            },
        )
    }

    fn upsert_skill(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<Skill, StoreError> {
        self.0
            .execute(
                C::DIALECT.pick(
                    "INSERT OR IGNORE INTO skills (depot_id, name, created) VALUES (?1, ?2, ?3)",
                    "INSERT INTO skills (depot_id, name, created) SELECT ?1::bigint, ?2::text, ?3::bigint \
                 WHERE NOT EXISTS (SELECT 1 FROM skills WHERE depot_id = ?1 AND name = ?2)",
                ),
                params![scope.depot_id, name, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, name FROM skills WHERE depot_id = ?1 AND name = ?2",
            params![scope.depot_id, name],
            |r| {
                Ok(Skill {
                    id: r.get(0)?,
                    name: r.get(1)?,
                })
            },
        )
    }

    fn list_zone_groups(&mut self, scope: DepotScope) -> Result<Vec<ZoneGroup>, StoreError> {
        self.all(
            "SELECT id, name, created, updated FROM zone_groups WHERE depot_id = ?1 ORDER BY id",
            [scope.depot_id],
            zone_group,
        )
    }

    fn get_zone_group(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<ZoneGroup>, StoreError> {
        Ok(self
            .all("SELECT id, name, created, updated FROM zone_groups WHERE depot_id = ?1 AND id = ?2", params![scope.depot_id, id], zone_group)?
            .pop())
    }

    fn upsert_zone_group(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<ZoneGroup, StoreError> {
        self.0
            .execute(
                C::DIALECT.pick(
                    "INSERT OR IGNORE INTO zone_groups (depot_id, name, created, updated) VALUES (?1, ?2, ?3, ?3)",
                    "INSERT INTO zone_groups (depot_id, name, created, updated) SELECT ?1::bigint, ?2::text, ?3::bigint, ?3::bigint \
                 WHERE NOT EXISTS (SELECT 1 FROM zone_groups WHERE depot_id = ?1 AND name = ?2)",
                ),
                params![scope.depot_id, name, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, name, created, updated FROM zone_groups WHERE depot_id = ?1 AND name = ?2",
            params![scope.depot_id, name],
            zone_group,
        )
    }

    fn list_zones(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
    ) -> Result<Vec<Zone>, StoreError> {
        self.all(
            "SELECT id, zone_group_id, name, polygon FROM zones WHERE depot_id = ?1 AND zone_group_id = ?2 ORDER BY id",
            params![scope.depot_id, zone_group_id],
            zone,
        )
    }

    fn upsert_zone(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
        name: &str,
        polygon: &Polygon,
        now: Timestamp,
    ) -> Result<Zone, StoreError> {
        let pairs: Vec<[f64; 2]> = polygon.0.iter().map(|c| [c.lat, c.lng]).collect();
        let text = serde_json::to_string(&pairs).map_err(|e| StoreError::Backend(e.to_string()))?;
        self.0
            .execute(
                "INSERT INTO zones (depot_id, zone_group_id, name, polygon, created, updated) \
                 SELECT ?1, id, ?3, ?4, ?5, ?5 FROM zone_groups WHERE id = ?2 AND depot_id = ?1 \
                 ON CONFLICT (zone_group_id, name) DO UPDATE SET polygon = excluded.polygon, updated = excluded.updated \
                 WHERE zones.polygon IS DISTINCT FROM excluded.polygon",
                params![scope.depot_id, zone_group_id, name, text, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, zone_group_id, name, polygon FROM zones WHERE depot_id = ?1 AND zone_group_id = ?2 AND name = ?3",
            params![scope.depot_id, zone_group_id, name],
            zone,
        )
    }

    fn list_third_parties(&mut self, organisation_id: i64) -> Result<Vec<ThirdParty>, StoreError> {
        self.all(
            "SELECT id, name FROM third_parties WHERE organisation_id = ?1 ORDER BY id",
            [organisation_id],
            |r| {
                Ok(ThirdParty {
                    id: r.get(0)?,
                    name: r.get(1)?,
                })
            },
        )
    }

    fn upsert_third_party(
        &mut self,
        organisation_id: i64,
        name: &str,
        now: Timestamp,
    ) -> Result<ThirdParty, StoreError> {
        self.0
            .execute(
                C::DIALECT.pick(
                    "INSERT OR IGNORE INTO third_parties (organisation_id, name, created) VALUES (?1, ?2, ?3)",
                    "INSERT INTO third_parties (organisation_id, name, created) SELECT ?1::bigint, ?2::text, ?3::bigint \
                 WHERE NOT EXISTS (SELECT 1 FROM third_parties WHERE organisation_id = ?1 AND name = ?2)",
                ),
                params![organisation_id, name, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, name FROM third_parties WHERE organisation_id = ?1 AND name = ?2",
            params![organisation_id, name],
            |r| {
                Ok(ThirdParty {
                    id: r.get(0)?,
                    name: r.get(1)?,
                })
            },
        )
    }

    fn list_custom_order_statuses(
        &mut self,
        organisation_id: i64,
    ) -> Result<Vec<String>, StoreError> {
        self.all(
            "SELECT status FROM custom_order_statuses WHERE organisation_id = ?1 ORDER BY id",
            [organisation_id],
            |r| r.get(0),
        )
    }

    fn insert_custom_order_status(
        &mut self,
        organisation_id: i64,
        status: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = self
            .0
            .execute(
                C::DIALECT.pick(
                    "INSERT OR IGNORE INTO custom_order_statuses (organisation_id, status, created) VALUES (?1, ?2, ?3)",
                    "INSERT INTO custom_order_statuses (organisation_id, status, created) SELECT ?1::bigint, ?2::text, ?3::bigint \
                 WHERE NOT EXISTS (SELECT 1 FROM custom_order_statuses WHERE organisation_id = ?1 AND status = ?2)",
                ),
                params![organisation_id, status, now.millis()],
            )
            .st()?;
        Ok(n == 1)
    }

    fn list_notification_templates(
        &mut self,
        scope: DepotScope,
    ) -> Result<Vec<NotificationTemplate>, StoreError> {
        self.all("SELECT id, channel, name, body FROM notification_templates WHERE depot_id = ?1 ORDER BY id", [scope.depot_id], template)
    }

    fn upsert_notification_template(
        &mut self,
        scope: DepotScope,
        channel: Channel,
        name: &str,
        body: &str,
        now: Timestamp,
    ) -> Result<NotificationTemplate, StoreError> {
        self.0
            .execute(
                "INSERT INTO notification_templates (depot_id, channel, name, body, created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?5) \
                 ON CONFLICT (depot_id, name) DO UPDATE SET channel = excluded.channel, body = excluded.body, updated = excluded.updated \
                 WHERE notification_templates.channel IS DISTINCT FROM excluded.channel \
                 OR notification_templates.body IS DISTINCT FROM excluded.body",
                params![scope.depot_id, channel.as_str(), name, body, now.millis()],
            )
            .st()?;
        self.one(
            "SELECT id, channel, name, body FROM notification_templates WHERE depot_id = ?1 AND name = ?2",
            params![scope.depot_id, name],
            template,
        )
    }

    fn list_gazetteer(&mut self, scope: DepotScope) -> Result<Vec<GazetteerEntry>, StoreError> {
        self.all(
            "SELECT address, postcode, lat, lng FROM gazetteer WHERE depot_id = ?1 ORDER BY id",
            [scope.depot_id],
            |r| {
                Ok(GazetteerEntry {
                    address: non_empty(r.get(0)?),
                    postcode: non_empty(r.get(1)?),
                    location: Coordinates {
                        lat: r.get(2)?,
                        lng: r.get(3)?,
                    },
                })
            },
        )
    }

    fn upsert_gazetteer_entry(
        &mut self,
        scope: DepotScope,
        e: &GazetteerEntry,
    ) -> Result<(), StoreError> {
        self.0
            .execute(
                "INSERT INTO gazetteer (depot_id, address, postcode, lat, lng) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (depot_id, address, postcode) DO UPDATE SET lat = excluded.lat, lng = excluded.lng",
                params![
                    scope.depot_id,
                    e.address.as_deref().unwrap_or(""),
                    e.postcode.as_deref().unwrap_or(""),
                    e.location.lat,
                    e.location.lng
                ],
            )
            .st()?;
        Ok(())
    }

    fn find_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
    ) -> Result<Option<CachedAnswer>, StoreError> {
        self.0
            .query_row(
                "SELECT lat, lng, asked FROM geocode_cache WHERE organisation_id = ?1 AND query = ?2",
                params![organisation_id, query],
                |r| {
                    let (lat, lng): (Option<f64>, Option<f64>) = (r.get(0)?, r.get(1)?);
                    Ok(CachedAnswer {
                        location: lat.zip(lng).map(|(lat, lng)| Coordinates { lat, lng }),
                        asked: ts(r.get(2)?),
                    })
                },
            )
            .optional()
            .st()
    }

    fn put_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
        answer: &CachedAnswer,
    ) -> Result<(), StoreError> {
        let (lat, lng) = answer.location.map(|c| (c.lat, c.lng)).unzip();
        self.0
            .execute(
                "INSERT INTO geocode_cache (organisation_id, query, lat, lng, asked) \
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (organisation_id, query) \
                 DO UPDATE SET lat = excluded.lat, lng = excluded.lng, asked = excluded.asked",
                params![organisation_id, query, lat, lng, answer.asked.millis()],
            )
            .st()?;
        Ok(())
    }
}
