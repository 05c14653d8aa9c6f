// Every node of this tenant graph has terms made by the analysis $version.
MATCH (t:Tenant)
SET t.termsVersion = $version
