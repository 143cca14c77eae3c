// The operation of each entry after position $from up to $to, latest first, with the payload of those
// whose op is $answer (an answer applies knowledge operations only when its payload carries them): an
// indexed range over the entries' positions, so it costs the entries in the range.
MATCH (e:Entry)
WHERE e.seq > $from AND e.seq <= $to
RETURN e.seq AS seq, e.op AS op, CASE WHEN e.op = $answer THEN e.payload END AS payload
ORDER BY seq DESC
