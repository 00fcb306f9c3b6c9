package changefeed

import "sync"

// pollCount counts the long polls being held, in all and per principal.
type pollCount struct {
	mu  sync.Mutex
	all int
	per map[string]int
}

// enter counts a long poll of who, or reports false when that would pass
// maxAll or maxPer.
func (c *pollCount) enter(who string, maxAll, maxPer int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.all >= maxAll || c.per[who] >= maxPer {
		return false
	}
	if c.per == nil {
		c.per = map[string]int{}
	}
	c.all++
	c.per[who]++
	return true
}

// leave ends a long poll entered by who.
func (c *pollCount) leave(who string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all--
	if c.per[who]--; c.per[who] <= 0 {
		delete(c.per, who)
	}
}
