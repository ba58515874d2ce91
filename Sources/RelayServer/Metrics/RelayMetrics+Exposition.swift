import RelayCore

extension RelayMetrics {
    /// The relay's build, as `relay_build_info` labels it.
    package static let version = "1.0.0"

    /// Every metric as a Prometheus text page: the counters kept here, plus gauges and counters
    /// read from `service` at scrape time (activities and alarms by state, held updates, the
    /// start budget, subscribers, the clock).
    func render(service: RelayService) -> String {
        var page = MetricsText()
        renderRequests(&page)
        renderPushCounters(&page)
        renderPushes(&page, service: service)
        renderConnections(&page)
        renderStream(&page, service: service)
        renderStreamEnds(&page)
        page.family("relay_store_commit_seconds", "histogram", "Time from a batch's submission to its acknowledgement.")
        page.histogram("relay_store_commit_seconds", commitSeconds)
        page.family("relay_store_batch_events", "histogram", "Events per committed batch.")
        page.histogram("relay_store_batch_events", batchEvents)
        page.family("relay_clock_seconds", "gauge", "The relay clock's time (virtual or system), Unix seconds.")
        page.sample("relay_clock_seconds", [], service.clock.now())
        page.family("relay_build_info", "gauge", "The relay's version; always 1.")
        page.sample(
            "relay_build_info", [("version", Self.version), ("clock", service.clock.mode.rawValue)], UInt64(1))
        return page.text
    }

    private func renderRequests(_ page: inout MetricsText) {
        page.family("relay_http_requests_total", "counter", "Requests answered, by surface, method and status.")
        for surface in Self.surfaces.indices {
            for method in Self.methods.indices {
                for status in 0..<Self.statusSlots {
                    let value = requests.value((surface * Self.methods.count + method) * Self.statusSlots + status)
                    guard value > 0 else { continue }
                    let code = status == Self.statusSlots - 1 ? "other" : String(Self.statuses[status])
                    page.sample(
                        "relay_http_requests_total",
                        [("surface", Self.surfaces[surface]), ("method", Self.methods[method]), ("status", code)],
                        value)
                }
            }
        }
    }

    /// The counters kept here alone, without what is read from a service (tests).
    func renderCounters() -> String {
        var page = MetricsText()
        renderRequests(&page)
        renderPushCounters(&page)
        renderConnections(&page)
        renderStreamEnds(&page)
        return page.text
    }

    private func renderPushCounters(_ page: inout MetricsText) {
        page.family("relay_provider_pushes_total", "counter", "Provider pushes answered, by APNs reason (none: 200).")
        for (index, reason) in Self.reasons.enumerated() {
            let value = pushReasons.value(index)
            guard value > 0 || index == 0 else { continue }
            page.sample("relay_provider_pushes_total", [("reason", reason)], value)
        }
        page.family("relay_push_outcomes_total", "counter", "Provider pushes by what the emulated device did.")
        for (index, outcome) in Self.outcomes.enumerated() {
            page.sample("relay_push_outcomes_total", [("outcome", outcome)], pushOutcomes.value(index))
        }
    }

    private func renderPushes(_ page: inout MetricsText, service: RelayService) {
        let state = service.read { emulator in
            var activities: [ActivityState: Int] = [:]
            var updates = ActivityCounters()
            for activity in emulator.activities.values {
                activities[activity.state, default: 0] += 1
                updates.deferred += activity.counters.deferred
                updates.coalesced += activity.counters.coalesced
                updates.refusedOverBudget += activity.counters.refusedOverBudget
            }
            var alarms: [AlarmState: Int] = [:]
            for alarm in emulator.alarms.values { alarms[alarm.state, default: 0] += 1 }
            return (activities, updates, alarms, emulator.pushToStartBudgetExhaustions)
        }
        page.family(
            "relay_activity_updates_total", "counter",
            "Updates held (deferred), replacing a held one (coalesced) or refused over budget, over the activities held."
        )
        page.sample("relay_activity_updates_total", [("result", "deferred")], UInt64(state.1.deferred))
        page.sample("relay_activity_updates_total", [("result", "coalesced")], UInt64(state.1.coalesced))
        page.sample("relay_activity_updates_total", [("result", "refused")], UInt64(state.1.refusedOverBudget))
        page.family(
            "relay_push_to_start_budget_exhausted_total", "counter", "Push-to-start pushes dropped: budget spent.")
        page.sample("relay_push_to_start_budget_exhausted_total", [], state.3)
        page.family("relay_activities", "gauge", "Live Activities held, by state.")
        for activityState in ActivityState.allCases {
            page.sample("relay_activities", [("state", activityState.rawValue)], UInt64(state.0[activityState] ?? 0))
        }
        page.family("relay_alarms", "gauge", "Alarms held, by state.")
        for alarmState in AlarmState.allCases {
            page.sample("relay_alarms", [("state", alarmState.rawValue)], UInt64(state.2[alarmState] ?? 0))
        }
    }

    private func renderConnections(_ page: inout MetricsText) {
        page.family("relay_tls_handshakes_total", "counter", "TLS handshakes completed.")
        page.sample("relay_tls_handshakes_total", [], handshakes.value(0))
        page.family("relay_tls_handshake_failures_total", "counter", "TLS handshakes that failed, by reason.")
        for (index, reason) in Self.handshakeFailures.enumerated() {
            page.sample("relay_tls_handshake_failures_total", [("reason", reason)], handshakeFailureCounts.value(index))
        }
        for (name, slots, help) in [
            ("relay_http2_goaways_total", goaways, "HTTP/2 GOAWAY frames, by direction and error code."),
            ("relay_http2_resets_total", resets, "HTTP/2 RST_STREAM frames, by direction and error code."),
        ] {
            page.family(name, "counter", help)
            for (direction, directionName) in Self.directions.enumerated() {
                for (code, codeName) in Self.http2Codes.enumerated() {
                    let value = slots.value(direction * Self.http2Codes.count + code)
                    guard value > 0 else { continue }
                    page.sample(name, [("direction", directionName), ("code", codeName)], value)
                }
            }
        }
    }

    private func renderStream(_ page: inout MetricsText, service: RelayService) {
        page.family("relay_stream_subscribers", "gauge", "Event-stream subscribers connected.")
        page.sample("relay_stream_subscribers", [], UInt64(service.subscriberCount))
        page.family("relay_stream_lag_bytes", "gauge", "Bytes queued to event-stream subscribers, not yet sent.")
        page.sample("relay_stream_lag_bytes", [], UInt64(service.hub.queuedBytes))
    }

    private func renderStreamEnds(_ page: inout MetricsText) {
        page.family("relay_stream_disconnects_total", "counter", "Event streams ended, by reason.")
        for (index, reason) in Self.streamEnds.enumerated() {
            page.sample("relay_stream_disconnects_total", [("reason", reason)], streamEndCounts.value(index))
        }
    }
}
