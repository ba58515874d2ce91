/// The documents the benchmark parses and writes: Live Activity pushes as a provider sends them.
enum Payloads {
    /// A delivery-tracking update, about 600 bytes, with a nested `content-state`.
    static let delivery = """
        {"aps":{"timestamp":1700000000,"event":"update","stale-date":1700003600,"relevance-score":75.5,\
        "content-state":{"orderId":"A-20231114-0042","status":"outForDelivery","etaMinutes":12,\
        "progress":0.62,"stopsRemaining":3,"driver":{"name":"Alex Morgan","rating":4.9,\
        "phone":"+1 408 555 0123"},"vehicle":{"kind":"van","plate":"7ABC123","lat":37.33182,\
        "lon":-122.03118},"items":[{"name":"Oat milk","qty":2},{"name":"Sourdough","qty":1},\
        {"name":"Blueberries","qty":3}],"message":"Left the warehouse \\u2014 3 stops before yours",\
        "updatedAt":1699999990},"alert":{"title":{"loc-key":"DELIVERY_UPDATE_TITLE"},\
        "body":{"loc-key":"DELIVERY_ETA_BODY","loc-args":["12"]},"sound":"default"}}}
        """

    /// A live game update, about 4 KB: scoreboard plus the last plays in `content-state`.
    static let game: String = {
        var plays: [String] = []
        for number in 0..<30 {
            let team = number % 2 == 0 ? "SFG" : "LAD"
            plays.append(
                """
                {"seq":\(1000 + number),"inning":\(number / 3 + 1),"half":"\(number % 2 == 0 ? "top" : "bottom")",\
                "team":"\(team)","batter":"Player \(number)","pitchSpeed":\(90.5 + Double(number) / 10),\
                "result":"\(["single", "strikeout", "fly out", "double", "walk"][number % 5])","rbi":\(number % 3)}
                """)
        }
        return """
            {"aps":{"timestamp":1700000123,"event":"update","stale-date":1700001000,"relevance-score":100,\
            "content-state":{"gameId":"2023-10-14-SFG-LAD","status":"inProgress","inning":8,"half":"bottom",\
            "outs":2,"balls":3,"strikes":2,"bases":[true,false,true],"home":{"abbr":"LAD","name":"Dodgers",\
            "score":4,"hits":9,"errors":0},"away":{"abbr":"SFG","name":"Giants","score":5,"hits":11,\
            "errors":1},"lastPlays":[\(plays.joined(separator: ","))],"broadcast":"KNBR 680 \\u00b7 SportsNet LA"},\
            "alert":{"title":"Giants lead 5\\u20134","body":"Bottom 8th, bases loaded... almost","sound":"default"}}}
            """
    }()
}
