package store_test

import "time"

func timeNow() time.Time { return time.Now() }
