package directory

import "time"

// AuditPeriod reads the period of the audit log's filters: from and to are
// dates (YYYY-MM-DD, UTC), either may be empty for an open end, and to is
// included, so end is the start of the day after it. refused names each
// date that is not one, or To when it comes before From.
func AuditPeriod(from, to string) (start, end time.Time, refused Fields) {
	refused = Fields{}
	day := func(field, v string) time.Time {
		if v == "" {
			return time.Time{}
		}
		d, err := time.Parse("2006-01-02", v)
		if err != nil {
			refused.Add(field, field+" must be a date, YYYY-MM-DD.")
		}
		return d
	}
	start, end = day("From", from), day("To", to)
	if !end.IsZero() {
		end = end.AddDate(0, 0, 1)
	}
	if len(refused) == 0 && !start.IsZero() && !end.IsZero() && !start.Before(end) {
		refused.Add("To", "To must not be before From.")
	}
	return start, end, refused
}
