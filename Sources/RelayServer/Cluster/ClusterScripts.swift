import RelayRedis

/// The Lua scripts of cluster mode. Each touches the keys of one slot only (a device's, a
/// channel's in `ClusterStore+Broadcast`, or the `{relay}` keys), is deterministic and so
/// replicates as it ran.
enum ClusterScripts {
    /// Commits one command's changes to a device if its version is still the one the command
    /// read: sets and deletes hash fields, appends the events (ids `0-<seq>`) and push records,
    /// and bumps the version. Returns `{"ok", version}` or `{"conflict", version}`.
    ///
    /// KEYS: the device hash, its event stream, its push log.
    /// ARGV: expected version, next seq, fields set (count), fields deleted (count), events
    /// (count), push records (count), push log length, event stream length, then the fields
    /// (name, value), the deleted names, the events (id, type, data, bundle, activity, alarm)
    /// and the records.
    static let commit = RedisScript(
        """
        local version = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
        if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
        local sets, deletes = tonumber(ARGV[3]), tonumber(ARGV[4])
        local events, records = tonumber(ARGV[5]), tonumber(ARGV[6])
        local i = 9
        for _ = 1, sets do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2 end
        for _ = 1, deletes do redis.call('HDEL', KEYS[1], ARGV[i]); i = i + 1 end
        for _ = 1, events do
          redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], ARGV[i], 't', ARGV[i + 1], 'd', ARGV[i + 2],
            'b', ARGV[i + 3], 'a', ARGV[i + 4], 'l', ARGV[i + 5])
          i = i + 6
        end
        for _ = 1, records do redis.call('LPUSH', KEYS[3], ARGV[i]); i = i + 1 end
        if records > 0 then redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[7]) - 1) end
        redis.call('HSET', KEYS[1], 'v', version + 1, 'seq', ARGV[2])
        return {'ok', version + 1}
        """)

    /// Moves the shared virtual clock if it is still at the epoch the change was made from.
    /// KEYS: the clock. ARGV: expected epoch (0: none yet), the new state's JSON.
    /// Returns `{"ok", epoch}` or `{"conflict", epoch}`.
    static let setClock = RedisScript(
        """
        local current = redis.call('GET', KEYS[1])
        local epoch = 0
        if current then epoch = tonumber(cjson.decode(current)['epoch'] or 0) end
        if epoch ~= tonumber(ARGV[1]) then return {'conflict', epoch} end
        redis.call('SET', KEYS[1], ARGV[2])
        return {'ok', epoch + 1}
        """)

    /// Sets a device's entry in the due index to its real next deadline, if the entry is still the
    /// one a sweep read (a commit since then has written the right one already).
    /// KEYS: the due index. ARGV: device, score read, new score (empty: remove).
    static let repairDue = RedisScript(
        """
        local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
        if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
        if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
        else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
        return 1
        """)

    /// Appends events to the fleet feed in each device's order, each once. An event of a device
    /// whose last fed event is its predecessor is appended as entry `0-<n>` (n from the feed's
    /// counter); one fed already is skipped; one whose predecessor is missing stops the script
    /// with `{"gap", device, last fed}` unless `force` is set (a fill from the device's stream,
    /// which may skip events trimmed from it). Events of no device (device "") are appended.
    /// Returns `{"ok", n}` (n: the feed's last entry). Each device's last fed number and the
    /// counter are read once and written once per call, whatever the number of events.
    ///
    /// KEYS: the feed, the fed index, the feed's counter. ARGV: stream length, force (0 or 1),
    /// events (count), then each event's device, seq, type, data, bundle, activity and alarm.
    static let feed = RedisScript(
        """
        local force = ARGV[2] == '1'
        local n = tonumber(redis.call('GET', KEYS[3]) or '0')
        local last, touched = {}, {}
        local function save()
          redis.call('SET', KEYS[3], n)
          for _, device in ipairs(touched) do redis.call('HSET', KEYS[2], device, last[device]) end
        end
        local i = 4
        for _ = 1, tonumber(ARGV[3]) do
          local device, seq = ARGV[i], tonumber(ARGV[i + 1])
          local take = true
          if device ~= '' then
            if last[device] == nil then
              last[device] = tonumber(redis.call('HGET', KEYS[2], device) or '0')
              touched[#touched + 1] = device
            end
            if seq <= last[device] then take = false
            elseif seq > last[device] + 1 and not force then
              save()
              return {'gap', device, last[device]}
            end
          end
          if take then
            if device ~= '' then last[device] = seq end
            n = n + 1
            redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-' .. n, 't', ARGV[i + 2], 'd', ARGV[i + 3],
              'b', ARGV[i + 4], 'a', ARGV[i + 5], 'l', ARGV[i + 6])
          end
          i = i + 7
        end
        save()
        return {'ok', n}
        """)
}
