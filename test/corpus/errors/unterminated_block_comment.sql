-- expect: 2:10 unterminated comment
SELECT 1 /* this comment never ends
;
