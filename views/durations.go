package views

import (
	"fmt"
	"strings"
	"time"
)

// expiresIn is "expires in 23 hours 59 minutes", "expires in 40 seconds" or
// "expired 5 minutes ago".
func expiresIn(d time.Duration) string {
	if d < 0 {
		return "expired " + roughDuration(-d) + " ago"
	}
	return "expires in " + roughDuration(d)
}

// roughDuration is d to the nearest minute in its two largest units (days,
// hours, minutes; the second only when next to the first), or seconds
// under a minute.
func roughDuration(d time.Duration) string {
	if d < time.Minute {
		return unit(int(d/time.Second), "second")
	}
	d = d.Round(time.Minute) // a statement made now lives "1 day", not "23 hours 59 minutes"
	vals := []int{int(d / (24 * time.Hour)), int(d % (24 * time.Hour) / time.Hour), int(d % time.Hour / time.Minute)}
	names := []string{"day", "hour", "minute"}
	var out []string
	for i, n := range vals {
		if n == 0 {
			continue
		}
		out = append(out, unit(n, names[i]))
		if i+1 < len(vals) && vals[i+1] > 0 {
			out = append(out, unit(vals[i+1], names[i+1]))
		}
		break
	}
	return strings.Join(out, " ")
}

func unit(n int, name string) string {
	if n == 1 {
		return "1 " + name
	}
	return fmt.Sprintf("%d %ss", n, name)
}
