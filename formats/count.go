package formats

import "strconv"

// Count is "1 server" or "3 servers" (a digit even for 0): the one way
// the console, the API's messages and the use cases count things.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
