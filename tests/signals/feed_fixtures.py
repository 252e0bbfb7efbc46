"""RSS and Atom documents for the feed tests, and a way to serve them on 127.0.0.1."""

from __future__ import annotations

RSS = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel>
<title>Example Security Blog</title>
<link>https://blog.example.com/</link>
<item>
  <title>Patch the OpenSSL CVE now</title>
  <link>https://blog.example.com/openssl-cve</link>
  <guid>https://blog.example.com/?p=1</guid>
  <pubDate>Mon, 30 Nov 2026 08:00:00 GMT</pubDate>
  <description>&lt;p&gt;A &lt;b&gt;critical&lt;/b&gt; vulnerability.&lt;/p&gt;
    &lt;p&gt;Upgrade to 3.4.1.&lt;/p&gt;</description>
</item>
<item>
  <title>Second post</title>
  <link>https://blog.example.com/second</link>
  <description>Plain text summary.</description>
</item>
</channel></rss>
"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Release notes</title>
  <id>urn:uuid:feed</id>
  <updated>2026-11-29T10:00:00Z</updated>
  <entry>
    <title>Version 2.0 released</title>
    <id>urn:uuid:entry-2</id>
    <link href="https://releases.example.org/2.0"/>
    <updated>2026-11-29T10:00:00Z</updated>
    <summary type="html">&lt;ul&gt;&lt;li&gt;Faster&lt;/li&gt;
      &lt;li&gt;Smaller&lt;/li&gt;&lt;/ul&gt;</summary>
  </entry>
</feed>
"""

HOSTILE = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Hostile</title>
<item>
  <title>&lt;img src=x onerror=alert(1)&gt;Click ![me](https://track.example/p.png)</title>
  <link>javascript:alert(1)</link>
  <guid>hostile-1</guid>
  <description><![CDATA[<script>alert('x')</script><p>Visible text.</p>
<pre>```dataviewjs
app.vault.adapter.remove("x")
```</pre>
<p>&lt;!-- @generated:index --&gt; and &lt;!-- @end:index --&gt;</p>
<p>![[Secret note]] ![x](https://track.example/pixel.png)</p>
<p>&lt;%* tp.system.exec() %&gt;</p>]]></description>
</item>
</channel></rss>
"""

NOT_XML = b"<html><body><h1>Welcome to my homepage</h1><p>No feed here.</p></body></html>"
