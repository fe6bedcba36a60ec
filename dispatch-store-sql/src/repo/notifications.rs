//! Notification tasks and depot notification settings on SQLite.

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::notification::{
    Channel, NotificationSettings, NotificationTask, TaskStatus,
};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::paging::{Cursor, Page, PageRequest};
use dispatch_core::ports::store::{NewTask, NotificationRepo, StoreError, TaskFilter};
use dispatch_core::time::Timestamp;

use super::order_rows::keyset;
use super::{ts, Db, Sql};

pub(super) const COLUMNS: &str = "t.id, t.template_id, t.channel, t.visit_id, t.order_id, t.order_number, \
     t.scheduled, t.sent, t.recipient, t.subject, t.message, t.status, t.sender, t.error, t.updated, \
     t.depot_id, d.organisation_id";

pub(super) fn task(r: &Row<'_>) -> crate::sql::Result<(DepotScope, NotificationTask)> {
    let channel: String = r.get(2)?;
    let status: String = r.get(11)?;
    let order_id: Option<i64> = r.get(4)?;
    let order_number: Option<String> = r.get(5)?;
    let bad = |what: &str| {
        crate::sql::Error::FromSqlConversionFailure(
            0,
            crate::sql::types::Type::Text,
            format!("corrupt stored {what}").into(),
        )
    };
    Ok((
        DepotScope {
            depot_id: r.get(15)?,
            organisation_id: r.get(16)?,
        },
        NotificationTask {
            id: r.get(0)?,
            template_id: r.get(1)?,
            channel: Channel::parse(&channel).ok_or_else(|| bad("channel"))?,
            visit_id: r.get(3)?,
            order: order_id.map(|id| (id, order_number.unwrap_or_default())),
            scheduled_date: ts(r.get(6)?),
            sent_date: r.get::<_, Option<i64>>(7)?.map(ts),
            to: r.get(8)?,
            subject: r.get(9)?,
            message: r.get(10)?,
            status: TaskStatus::parse(&status).ok_or_else(|| bad("task status"))?,
            sender: r.get(12)?,
            error: r.get(13)?,
            updated: ts(r.get(14)?),
        },
    ))
}

impl<C: Connection> NotificationRepo for Db<C> {
    fn insert_notification_task(
        &mut self,
        scope: DepotScope,
        t: &NewTask,
        now: Timestamp,
    ) -> Result<NotificationTask, StoreError> {
        let id: i64 = self
            .0
            .prepare_cached(
                "INSERT INTO notification_tasks (depot_id, template_id, channel, order_id, order_number, \
                 scheduled, recipient, subject, message, status, created, updated) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'Scheduled', ?10, ?10) RETURNING id",
            )
            .st()?
            .query_row(
                params![
                scope.depot_id,
                t.template_id,
                t.channel.as_str(),
                t.order.as_ref().map(|o| o.0),
                t.order.as_ref().map(|o| &o.1),
                t.scheduled.millis(),
                t.to,
                t.subject,
                t.message,
                now.millis()
            ],
                |r| r.get(0),
            )
            .st()?;
        self.0
            .query_row(
                &format!("SELECT {COLUMNS} FROM notification_tasks t JOIN depots d ON d.id = t.depot_id WHERE t.id = ?1"),
                [id],
                task,
            )
            .st()
            .map(|(_, t)| t)
    }

    fn list_notification_tasks(
        &mut self,
        scope: DepotScope,
        filter: &TaskFilter,
        page: &PageRequest,
    ) -> Result<Page<NotificationTask>, StoreError> {
        let mut conditions = vec!["t.depot_id = ?", "d.organisation_id = ?"];
        let mut values: Vec<Box<dyn crate::sql::ToSql>> =
            vec![Box::new(scope.depot_id), Box::new(scope.organisation_id)];
        keyset(page, "t.", &mut conditions, &mut values);
        if let Some(status) = filter.status {
            conditions.push("t.status = ?");
            values.push(Box::new(status.as_str()));
        }
        if let Some(channel) = filter.channel {
            conditions.push("t.channel = ?");
            values.push(Box::new(channel.as_str()));
        }
        values.push(Box::new(page.limit as i64 + 1));
        let sql = format!(
            "SELECT {COLUMNS} FROM notification_tasks t JOIN depots d ON d.id = t.depot_id \
             WHERE {} ORDER BY t.updated DESC, t.id DESC LIMIT ?",
            conditions.join(" AND ")
        );
        let mut items: Vec<NotificationTask> = self
            .0
            .prepare_cached(&sql)
            .st()?
            .query_map(crate::sql::params_from_iter(values.iter()), task)
            .st()?
            .map(|r| r.map(|(_, t)| t))
            .collect::<Result<_, _>>()
            .st()?;
        let next = if items.len() > page.limit {
            items.truncate(page.limit);
            items.last().map(|t| Cursor {
                updated: t.updated,
                id: t.id,
            })
        } else {
            None
        };
        Ok(Page { items, next })
    }

    fn cancel_scheduled_tasks(
        &mut self,
        scope: DepotScope,
        order_id: i64,
        template_id: i64,
        reason: &str,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let n = self
            .0
            .prepare_cached(
                "UPDATE notification_tasks SET status = 'Cancelled', error = ?4, updated = ?5 \
                 WHERE depot_id = ?1 AND order_id = ?2 AND template_id = ?3 \
                 AND status = 'Scheduled' AND claimed IS NULL",
            )
            .st()?
            .execute(params![
                scope.depot_id,
                order_id,
                template_id,
                reason,
                now.millis()
            ])
            .st()?;
        Ok(n as u64)
    }

    fn finish_notification_task(
        &mut self,
        id: i64,
        status: TaskStatus,
        sender: Option<&str>,
        error: Option<&str>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let sent =
            matches!(status, TaskStatus::Sent | TaskStatus::Recorded).then_some(now.millis());
        self.0
            .prepare_cached(
                "UPDATE notification_tasks SET status = ?2, sender = ?3, error = ?4, sent = ?5, updated = ?6 \
                 WHERE id = ?1 AND status = 'Scheduled' AND claimed IS NOT NULL",
            )
            .st()?
            .execute(params![id, status.as_str(), sender, error, sent, now.millis()])
            .st()?;
        Ok(())
    }

    fn notification_settings(
        &mut self,
        scope: DepotScope,
    ) -> Result<NotificationSettings, StoreError> {
        Ok(self
            .0
            .prepare_cached(
                "SELECT planned_start_template_id, on_delivery_template_id, on_delivery_window_minutes \
                 FROM depot_notification_settings WHERE depot_id = ?1",
            )
            .st()?
            .query_row([scope.depot_id], |r| {
                Ok(NotificationSettings {
                    planned_start_template: r.get(0)?,
                    on_delivery_template: r.get(1)?,
                    on_delivery_window_minutes: r.get(2)?,
                })
            })
            .optional()
            .st()?
            .unwrap_or_default())
    }

    fn set_notification_settings(
        &mut self,
        scope: DepotScope,
        s: &NotificationSettings,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO depot_notification_settings (depot_id, planned_start_template_id, \
                 on_delivery_template_id, on_delivery_window_minutes) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (depot_id) DO UPDATE SET planned_start_template_id = ?2, \
                 on_delivery_template_id = ?3, on_delivery_window_minutes = ?4",
            )
            .st()?
            .execute(params![
                scope.depot_id,
                s.planned_start_template,
                s.on_delivery_template,
                s.on_delivery_window_minutes
            ])
            .st()?;
        Ok(())
    }
}
